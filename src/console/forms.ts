/**
 * How the console reads a posted form (what it draws is in pages/parts.ts): the form within a size limit,
 * its fields, a refusal as a FormError beside the field it concerns (a page answers it 400 with the form
 * drawn again), the 303 that follows a change (so a reload shows the page again rather than posting
 * again), and the form key: a value made when a form is drawn and posted with it, which a change uses as
 * its idempotency key, so that a double submit or a re-sent form is applied once.
 */
import type * as z from "zod";
import { readBytes } from "../http/body";

/** A console form is a few short fields; anything larger is refused before it is read. */
export const MAX_FORM_BYTES = 16 * 1024;

/** Why a form over its limit is refused (FormError's reason, on the form as a whole). */
export const FORM_TOO_LARGE = "The form is too large.";

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

/**
 * The posted form's fields (urlencoded or multipart; a file is read as its text), the first value of each
 * name, or a FormError on the form as a whole when it is larger than `maxBytes` or is not a form. The size
 * is measured as the body arrives (with or without a Content-Length), so a page never reads or parses
 * more than it takes.
 */
export async function readForm(request: Request, maxBytes = MAX_FORM_BYTES): Promise<Map<string, string>> {
  const bytes = await readBytes(request, maxBytes);
  if (bytes === null) throw new FormError("form", FORM_TOO_LARGE);
  const parsed = await new Response(bytes, { headers: { "content-type": request.headers.get("content-type") ?? "" } })
    .formData()
    .catch(() => {
      throw new FormError("form", "The form could not be read; reload the page and try again.");
    });
  const fields = new Map<string, string>();
  for (const [name, value] of parsed)
    if (!fields.has(name)) fields.set(name, typeof value === "string" ? value : await value.text());
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
