/**
 * What the pages draw alike (how they read a form is ../forms.ts, times and amounts ../format.ts): a
 * labelled input with its error tied to it, a form-wide error, the notice after a change, the 403 of a
 * change the operator's role may not make, and the one-button form that decides a request.
 */
import type { FormError } from "../forms";
import { html, htmlResponse, type Html } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";

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
  return error?.field === "form" ? notice("bad", error.reason) : html``;
}

/** A notice at the top of a page: announced to screen readers (role status, or alert for a refusal). */
export function notice(kind: "good" | "bad", text: string | Html): Html {
  return html`<p class="notice ${kind}" role="${kind === "bad" ? "alert" : "status"}">${text}</p>`;
}

/**
 * The notice a page shows after a change, named by a code in its address (`?notice=<code>`, which the
 * change's 303 adds): the text is the page's own for that code, so a crafted link cannot put words on it.
 */
export function noticeOf(url: URL, texts: Record<string, string>): Html {
  const code = url.searchParams.get("notice");
  const text = code !== null && Object.hasOwn(texts, code) ? texts[code] : undefined;
  return text === undefined ? html`` : notice("good", text);
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
