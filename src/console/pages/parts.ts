/**
 * What the Needs attention, catalogue, dead-letter and audit pages share: the actor a console change is
 * audited under, form reading, the notice after a change, times, and errors shown beside their field
 * (a domain's refusal is shown through ../refusals.ts).
 */
import { auditedBy } from "../actor";
import { MAX_FORM_BYTES } from "../forms";
import { html, htmlResponse, type Html } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";

/** Who a console change's audit row names: the signed-in operator (src/console/actor.ts). */
export const actorOf = auditedBy;

/**
 * A posted form (urlencoded or multipart) of at most `maxBytes`, or null when it is larger or not a form:
 * measured before it is parsed, so a page never parses more than it takes.
 */
export async function formOf(request: Request, maxBytes = MAX_FORM_BYTES): Promise<FormData | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (!Number.isFinite(declared) || declared > maxBytes) return null;
  const bytes = await request.arrayBuffer();
  if (bytes.byteLength > maxBytes) return null;
  try {
    return await new Response(bytes, {
      headers: { "content-type": request.headers.get("content-type") ?? "" },
    }).formData();
  } catch {
    return null;
  }
}

export function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value.trim() : "";
}

/** 303 back to a page after a change, so a reload does not post again. */
export function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { location } });
}

/** A notice at the top of a page: announced to screen readers (role status, or alert for a refusal). */
export function notice(kind: "good" | "bad", text: string | Html): Html {
  return html`<p class="notice ${kind}" role="${kind === "bad" ? "alert" : "status"}">${text}</p>`;
}

/** A time as people read it, in UTC, in a <time> element. */
export function when(ms: number | null | undefined): Html {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return html`–`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace("T", " ")} UTC</time>`;
}

/**
 * A labelled input with its error tied to it (aria-describedby, aria-invalid) when the last post refused it.
 */
export function input(parts: {
  id: string;
  name: string;
  label: string;
  value?: string;
  type?: string;
  error?: string;
  hint?: string;
  required?: boolean;
  extra?: Html;
}): Html {
  const described = [
    parts.hint !== undefined ? `${parts.id}-hint` : "",
    parts.error !== undefined ? `${parts.id}-error` : "",
  ]
    .filter(Boolean)
    .join(" ");
  return html`<div class="field">
    <label for="${parts.id}">${parts.label}</label>
    ${parts.hint !== undefined ? html`<span class="hint" id="${parts.id}-hint">${parts.hint}</span>` : ""}
    <input id="${parts.id}" name="${parts.name}" type="${parts.type ?? "text"}" value="${parts.value ?? ""}"
      ${parts.required === true ? html`required` : ""} ${described !== "" ? html`aria-describedby="${described}"` : ""}
      ${parts.error !== undefined ? html`aria-invalid="true"` : ""} ${parts.extra ?? ""} />
    ${parts.error !== undefined ? html`<span class="error" id="${parts.id}-error">${parts.error}</span>` : ""}
  </div>`;
}

/** 403 as a page: the signed-in operator's role does not allow this change; nothing was changed. */
export function refusedByRole(ctx: PageContext, needed: string): Response {
  const body = html`${notice("bad", `This change needs the ${needed} role; you are signed in as ${ctx.operator.role}. Nothing was changed.`)}`;
  return htmlResponse(layout({ title: "Not allowed", operator: ctx.operator, body }), 403);
}

/**
 * A one-button form that decides a request (a posting's on its wallet page, a limit's on the limits page):
 * approve or reject it, named for screen readers as `${label} ${what} ${id}`.
 */
export function decideButton(action: "approve" | "reject", id: number, label: string, what: string): Html {
  return html`<form method="post" class="inline"><input type="hidden" name="action" value="${action}" /><input type="hidden" name="request" value="${id}" />
    <button type="submit" class="${action === "reject" ? "quiet" : ""}" aria-label="${label} ${what} ${id}">${label}</button></form>`;
}
