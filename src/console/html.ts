/**
 * The console's HTML: a tagged template that escapes every interpolated value unless it is markup made by
 * `html` itself (or by `raw`, for constants written in this code). What a client or an operator wrote (a
 * reference, a name, a reason) can only ever be text on a console page, whichever template shows it.
 *
 * Escaping covers text and quoted attribute values alike (& < > " ' and the backtick are all replaced), so
 * an interpolation must not open an attribute without quotes: `html` throws on `name=${value}`, which a
 * test run meets at once. A URL attribute (href, src, action, formaction) takes only a path of this origin
 * (`/…`, `?…` or `#…`), so a `javascript:` or another site's address cannot get into one.
 */

/** Markup: made by `html` or `raw`, and interpolated as it is. Anything else is text and is escaped. */
export class Html {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Text as HTML text or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => ESCAPES[character]!);
}

/** A trusted constant of this code as markup; never for anything read from a request or from storage. */
export function raw(markup: string): Html {
  return new Html(markup);
}

/** An attribute opened without quotes just before an interpolation: `name=${…}`. */
const UNQUOTED_ATTRIBUTE = /[\s"'][^\s"'<>=/]+\s*=\s*$/;
/** A URL attribute whose quoted value starts just before an interpolation: `href="${…}`. */
const URL_ATTRIBUTE = /\s(?:href|src|action|formaction)\s*=\s*["']$/i;
/** Where a URL attribute may point: a path, query or fragment of this origin (not `//host`). */
const SAME_ORIGIN_REFERENCE = /^(?:\/(?!\/)|\?|#)/;

function render(value: unknown): string {
  if (value instanceof Html) return value.toString();
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/**
 * `html\`<p>${text}</p>\``: every value escaped, except Html values (so templates nest); arrays are
 * rendered item by item; null, undefined and false render nothing (for `${cond && html\`…\`}`).
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let index = 0; index < values.length; index += 1) {
    const before = strings[index]!;
    const value = values[index];
    if (UNQUOTED_ATTRIBUTE.test(before))
      throw new Error(`html: an interpolation after "${before.slice(-24)}" is an unquoted attribute value`);
    if (URL_ATTRIBUTE.test(before) && !(value instanceof Html) && !SAME_ORIGIN_REFERENCE.test(String(value))) {
      throw new Error("html: a URL attribute takes a path of this origin only");
    }
    out += render(value) + strings[index + 1]!;
  }
  return new Html(out);
}

/** A path with its segments encoded: `path("/console/clients", id)` for any id a client chose. */
export function path(base: string, ...segments: string[]): string {
  return [base, ...segments.map(encodeURIComponent)].join("/");
}

/** A path with a query string built from the defined values. */
export function withQuery(base: string, query: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text === "" ? base : `${base}?${text}`;
}

/** A console document as an answer of its own (a refused form's 400, a 404): the one place it is made. */
export function htmlResponse(markup: Html, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(markup.toString(), {
    status,
    headers: { "content-type": "text/html; charset=utf-8", ...headers },
  });
}
