/**
 * GET /console/dead-letters: webhooks that failed every attempt, newest first, filtered by status and
 * client; an operator replays one (POST), once: the same event id is queued again and the replay is
 * audited under their name.
 */
import { roleAllows } from "../../operators/roles";
import { listDeadLetters } from "../../webhooks/dead-letter-store";
import { replayAudited } from "../../webhooks/dead-letter-actions";
import { DeadLetterParams } from "../../webhooks/dead-letter-admin-schemas";
import { auditedBy } from "../actor";
import { when } from "../format";
import { field, FormError, formRequest, readForm, seeOther } from "../forms";
import { html, htmlResponse, withQuery } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";
import { shownOnForm } from "../refusals";
import { formProblem, notice, noticeOf, refusedByRole } from "./parts";

const STATUSES = ["pending", "replayed", "all"] as const;
type Status = (typeof STATUSES)[number];

async function draw(ctx: PageContext, refused: FormError | null = null) {
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
  // Only digits from the address: a crafted link cannot put words in the notice.
  const replayed = /^\d{1,15}$/.exec(url.searchParams.get("id") ?? "")?.[0] ?? "?";
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
    ${noticeOf(url, { replayed: `Dead letter #${replayed} replayed: it is queued again with the same event id.` })}
    ${formProblem(refused)}
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
  return draw(ctx);
}

/** POST /console/dead-letters: replays the dead letter `id`. */
export async function post(ctx: PageContext) {
  if (!roleAllows(ctx.operator.role, "operator")) return refusedByRole(ctx, "operator");
  try {
    const form = await readForm(ctx.request);
    // Read as POST /admin/webhooks/dead-letters/:id/replay reads its path.
    const read = formRequest(DeadLetterParams, { id: field(form, "id", { required: false }) });
    if (read instanceof FormError) throw new FormError("form", "No such dead letter: nothing was replayed.");
    const { id } = read;
    const result = await replayAudited(ctx.env, auditedBy(ctx), id);
    if (!result.ok) {
      const why =
        result.reason === "not_found"
          ? `No dead letter #${id}.`
          : `Dead letter #${id} was already replayed: it is sent once.`;
      throw new FormError("form", why);
    }
    return seeOther(withQuery("/console/dead-letters", { notice: "replayed", id }));
  } catch (error) {
    const refused = shownOnForm(error, []);
    if (refused === null) throw error;
    return htmlResponse(await draw(ctx, refused), 400);
  }
}
