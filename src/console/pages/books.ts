/**
 * /console/books: how long the client's books are kept (docs/books.md, "Retention"), and an admin's form
 * to change it: the same setting, bounds and audit row as PUT /admin/books/retention
 * (books/retention-actions.ts). The scheduled job drops the days past it.
 */
import { RetentionRequest } from "../../books/books-admin-schemas";
import { booksRetention, setBooksRetention } from "../../books/retention-actions";
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from "../../books/retention-rules";
import { roleAllows } from "../../operators/roles";
import { auditedBy } from "../actor";
import { when } from "../format";
import { asJson, FormError, formRequest, readForm, seeOther } from "../forms";
import { html, htmlResponse, type Html } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";
import { formProblem, input, noticeOf } from "./parts";

const NOTICES = {
  set: "The retention was set: the scheduled job drops the days past it within minutes.",
  kept: "Everything is kept now: no day is dropped.",
};

async function draw(ctx: PageContext, error: FormError | null = null, given = ""): Promise<Html> {
  const { env, operator, url } = ctx;
  const retention = await booksRetention(env.DB);
  const now =
    retention.days === null
      ? html`<p>Every day of the books is kept (the default).</p>`
      : html`<p>The books keep the last <strong>${retention.days}</strong> days, today included: days before
        ${when(retention.keptFrom)} are dropped. Set by ${retention.setBy ?? "–"}, ${when(retention.setAt)}.</p>`;
  const form = roleAllows(operator.role, "admin")
    ? html`<form method="post" class="card" aria-labelledby="retention-title" novalidate>
        <h2 id="retention-title">Change the retention</h2>
        ${formProblem(error)}
        ${input("days", "Days kept", {
          value: given,
          error,
          required: false,
          hint: `${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS} days, today included; empty keeps everything. A day dropped is gone from every list, search, export and chart.`,
          attributes: html`inputmode="numeric" autocomplete="off"`,
        })}
        <button type="submit">Set</button>
      </form>`
    : html`<p class="hint">Changing the retention needs the admin role.</p>`;
  const body = html`${noticeOf(url, NOTICES)}
    <section aria-labelledby="kept-title"><h2 id="kept-title">Retention</h2>${now}</section>${form}`;
  return layout({ title: "Books", operator, current: "/console/books", body });
}

export function get(ctx: PageContext): Promise<Html> {
  return draw(ctx);
}

/** POST: set the retention (an admin's; the router has checked the role). */
export async function post(ctx: PageContext): Promise<Html | Response> {
  let given = "";
  try {
    const form = await readForm(ctx.request);
    given = (form.get("days") ?? "").trim();
    // Read as PUT /admin/books/retention reads its body.
    const body = formRequest(
      RetentionRequest,
      { days: given === "" ? null : asJson(given) },
      {
        days: `A whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, or nothing to keep everything.`,
      },
    );
    if (body instanceof FormError) return htmlResponse(await draw(ctx, body, given), 400);
    await setBooksRetention(ctx.env.DB, auditedBy(ctx), body.days);
    return seeOther(`/console/books?notice=${body.days === null ? "kept" : "set"}`);
  } catch (error) {
    if (error instanceof FormError) return htmlResponse(await draw(ctx, error, given), 400);
    throw error;
  }
}
