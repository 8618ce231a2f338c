/**
 * What the console's forms share: reading a posted form within a size limit, the 303 that follows a
 * change (so a reload shows the page again rather than posting again), notices named by a code (the text
 * is this code's, so a crafted link cannot put words on a page), and the form key: a value made when a
 * form is drawn and posted with it, which a change uses as its idempotency key, so that a double submit
 * or a re-sent form is applied once.
 */
import type * as z from "zod";
import { html, type Html } from "./html";

/** A console form is a few short fields; anything larger is refused before it is read. */
export const MAX_FORM_BYTES = 16 * 1024;

export function seeOther(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, ...headers } });
}

/** A field a form was refused for, and why, shown next to that field. */
export class FormError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

/** The posted form's text fields, or a FormError (on the field "form") when it is too large or not a form. */
export async function readForm(request: Request): Promise<Map<string, string>> {
  const length = Number(request.headers.get("content-length") ?? "0");
  if (!Number.isFinite(length) || length > MAX_FORM_BYTES) throw new FormError("form", "The form is too large.");
  const text = await request.text();
  if (text.length > MAX_FORM_BYTES) throw new FormError("form", "The form is too large.");
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) if (!fields.has(name)) fields.set(name, value);
  return fields;
}

/** A field's text, trimmed; a FormError when it is required and empty or longer than `max`. */
export function field(form: Map<string, string>, name: string, { required = true, max = 200 } = {}): string {
  const value = (form.get(name) ?? "").trim();
  if (required && value === "") throw new FormError(name, "This field is required.");
  if (value.length > max) throw new FormError(name, `At most ${max} characters.`);
  return value;
}

/**
 * The request a form makes, read through the operator API's own schema for it (the body or the path its
 * /admin route parses), so that the console takes exactly what the API takes. What the schema refuses is
 * a FormError on the first field it names, in the words `words` has for that field (the schema's own
 * message otherwise).
 */
export function formRequest<Schema extends z.ZodType>(
  schema: Schema,
  request: Record<string, unknown>,
  words: Record<string, string> = {},
): z.output<Schema> | FormError {
  const parsed = schema.safeParse(request);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = typeof issue?.path[0] === "string" ? issue.path[0] : "form";
  return new FormError(name, words[name] ?? issue?.message ?? "The service does not take this form.");
}

/** A field's text as a JSON body would carry it: the number it spells as JSON, or the text itself. */
export function asJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "number" ? value : text;
  } catch {
    return text;
  }
}

/** A new form key: drawn into a form as a hidden field, the idempotency key of the change it posts. */
export function newFormKey(): string {
  return `console-${crypto.randomUUID()}`;
}

/** A form key as posted: the shape newFormKey makes, or a FormError. */
export function formKey(form: Map<string, string>): string {
  const key = form.get("formKey") ?? "";
  if (!/^console-[0-9a-f-]{36}$/.test(key))
    throw new FormError("form", "The form is missing its key; reload the page and try again.");
  return key;
}

/** A labelled input, its error (if this is the field refused) tied to it for screen readers. */
export function input(
  name: string,
  label: string,
  {
    type = "text",
    value = "",
    error,
    hint,
    required = true,
    attributes,
  }: {
    type?: string;
    value?: string;
    error?: FormError | null;
    hint?: string;
    required?: boolean;
    attributes?: Html;
  } = {},
): Html {
  const id = `field-${name}`;
  const failed = error?.field === name;
  const described = [hint !== undefined ? `${id}-hint` : "", failed ? `${id}-error` : ""].filter(Boolean).join(" ");
  return html`<div class="field">
    <label for="${id}">${label}</label>
    ${hint !== undefined ? html`<span id="${id}-hint" class="hint">${hint}</span>` : ""}
    <input id="${id}" name="${name}" type="${type}" value="${value}" ${required ? html`required` : ""}
      ${failed ? html`aria-invalid="true"` : ""} ${described !== "" ? html`aria-describedby="${described}"` : ""} ${attributes ?? ""} />
    ${failed ? html`<p id="${id}-error" class="error">${error!.reason}</p>` : ""}
  </div>`;
}

/** A form-wide error (not tied to one field), announced when the page is shown. */
export function formProblem(error: FormError | null | undefined): Html {
  return error?.field === "form" ? html`<p class="notice bad" role="alert">${error.reason}</p>` : html``;
}

/** The notices a page may show after a change, by code: `?notice=<code>`. */
export function notice(url: URL, texts: Record<string, string>): Html {
  const code = url.searchParams.get("notice");
  const text = code !== null && Object.hasOwn(texts, code) ? texts[code] : undefined;
  return text === undefined ? html`` : html`<p class="notice good" role="status">${text}</p>`;
}
