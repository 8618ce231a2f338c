/**
 * GET /console/dead-letters: webhooks that failed every attempt, newest first, filtered by status and
 * client; an operator replays one (POST), once: the same event id is queued again and the replay is
 * audited under their name.
 */
import { Refusal } from "../../kernel/failures";
import { roleAllows } from "../../operators/roles";
import { listDeadLetters } from "../../webhooks/dead-letter-store";
import { replayAudited } from "../../webhooks/dead-letter-actions";
import { DeadLetterParams } from "../../webhooks/dead-letter-admin-schemas";
import { FormError, formRequest } from "../forms";
import { html, withQuery } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";
import { refusalText } from "../refusals";
import { actorOf, field, formOf, notice, refusedByRole, seeOther, when } from "./parts";

const STATUSES = ["pending", "replayed", "all"] as const;
type Status = (typeof STATUSES)[number];

async function page(ctx: PageContext, message?: ReturnType<typeof notice>) {
  const { env, operator, url } = ctx;
  const given = url.searchParams.get("status");
  const status: Status = (STATUSES as readonly string[]).includes(given ?? "") ? (given as Status) : "pending";
  const clientId = url.searchParams.get("clientId")?.trim() || undefined;
  const beforeText = url.searchParams.get("before");
  const before = beforeText !== null && /^\d{1,15}$/.test(beforeText) ? Number(beforeText) : undefined;
  const validClient = clientId === undefined || /^[A-Za-z0-9_-]{1,64}$/.test(clientId);
  const listed = validClient
    ? await listDeadLetters(env.DB, { status, clientId, before, limit: 50 })
    : { deadLetters: [], nextBefore: null };
  const mayReplay = roleAllows(operator.role, "operator");
  const replayed = url.searchParams.get("replayed");
  const rows = listed.deadLetters.map(
    (letter) => html`<tr id="dead-letter-${letter.id}">
      <td>#${letter.id}</td><td>${letter.clientId}</td><td>${letter.message.event.type}<br /><span class="mono hint">${letter.eventId}</span></td>
      <td class="mono">${letter.url}</td><td class="num">${letter.attempts ?? "–"}</td><td>${letter.lastError}</td><td>${when(letter.failedAt)}</td>
      <td>${
        letter.replayedAt !== null
          ? html`replayed ${when(letter.replayedAt)}`
          : mayReplay
            ? html`<form method="post" action="/console/dead-letters" class="inline">
              <input type="hidden" name="id" value="${letter.id}" />
              <button type="submit" aria-label="Replay dead letter ${letter.id}">Replay</button></form>`
            : "waiting"
      }</td>
    </tr>`,
  );
  const body = html`
    ${replayed !== null && /^\d+$/.test(replayed) ? notice("good", `Dead letter #${replayed} replayed: it is queued again with the same event id.`) : ""}
    ${message ?? ""}
    ${validClient ? "" : notice("bad", "A client id is letters, digits, _ and - only.")}
    <form method="get" action="/console/dead-letters" class="card" aria-label="Filter dead letters">
      <div class="field"><label for="filter-status">Status</label>
        <select id="filter-status" name="status">${STATUSES.map((option) => html`<option value="${option}" ${option === status ? html`selected` : ""}>${option}</option>`)}</select></div>
      <div class="field"><label for="filter-client">Client id</label><input id="filter-client" name="clientId" value="${clientId ?? ""}" /></div>
      <button type="submit">Filter</button>
    </form>
    ${
      rows.length === 0
        ? html`<p>No dead letters.</p>`
        : html`<table>
          <thead><tr><th scope="col">Id</th><th scope="col">Client</th><th scope="col">Event</th><th scope="col">URL</th><th scope="col" class="num">Attempts</th>
            <th scope="col">Last error</th><th scope="col">Failed</th><th scope="col">Replay</th></tr></thead>
          <tbody>${rows}</tbody></table>`
    }
    ${listed.nextBefore !== null ? html`<p><a href="${withQuery("/console/dead-letters", { status, clientId, before: listed.nextBefore })}">Older dead letters</a></p>` : ""}`;
  return layout({ title: "Dead letters", operator, current: "/console/dead-letters", body });
}

export function get(ctx: PageContext) {
  return page(ctx);
}

/** POST /console/dead-letters: replays the dead letter `id`. */
export async function post(ctx: PageContext) {
  if (!roleAllows(ctx.operator.role, "operator")) return refusedByRole(ctx, "operator");
  const form = await formOf(ctx.request);
  if (form === null) return page(ctx, notice("bad", "The form could not be read; reload the page and try again."));
  // Read as POST /admin/webhooks/dead-letters/:id/replay reads its path.
  const read = formRequest(DeadLetterParams, { id: field(form, "id") });
  if (read instanceof FormError) return page(ctx, notice("bad", "No such dead letter: nothing was replayed."));
  const { id } = read;
  try {
    const result = await replayAudited(ctx.env, actorOf(ctx), id);
    if (!result.ok) {
      return page(
        ctx,
        notice(
          "bad",
          result.reason === "not_found"
            ? `No dead letter #${id}.`
            : `Dead letter #${id} was already replayed: it is sent once.`,
        ),
      );
    }
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return page(ctx, notice("bad", refusalText(error)));
  }
  return seeOther(`/console/dead-letters?replayed=${id}`);
}
