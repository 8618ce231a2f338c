/**
 * /console/orders/:orderId: one order and its timeline: created, the ledger movements of the order (charge,
 * refunds, void), each state its webhook events announced, with times; each line's supplier outcome; each
 * event's delivery (handed to the queue, the receiver's last answer, and its dead letters); a failing
 * timer.
 * Redeem codes are masked as the API masks them (orders/redeem-rules.ts); revealing one is a POST (operator role) that writes an audit row first and
 * answers the page with that one code shown, never in a URL.
 */
import { audit } from "../../audit/audit-store";
import type { DeliveryAnswer } from "../../books/answer-rules";
import { bookedRow } from "../../books/books-reader";
import { objectIdOf } from "../../orders/order-id";
import { orderRecordById } from "../../orders/order-lookup";
import type { OrderRecord } from "../../orders/order-record";
import { maskedCode } from "../../orders/redeem-rules";
import { timerFailureOfOrder } from "../../orders/timer-failure-store";
import { roleAllows } from "../../operators/roles";
import type { LedgerEntry } from "../../wallets/ledger";
import { chargeKey, refundKey, voidKey } from "../../wallets/ledger-keys";
import { deadLettersOfEvents, type DeadLetter } from "../../webhooks/dead-letter-store";
import { placedWallet } from "../../wallets/wallet-registry-store";
import { auditedBy } from "../actor";
import { amount, when } from "../format";
import { readForm } from "../forms";
import { html, path, type Html } from "../html";
import { layout, notFoundPage } from "../layout";
import type { PageContext } from "../page";

/** The order's ledger entries: its charge, a refund per line, its void (each only if written). */
async function movementsOf(env: Env, record: OrderRecord): Promise<LedgerEntry[]> {
  // The wallet object that holds the order's charge (its successor, once a charge met the wallet moved).
  const wallet = placedWallet(env, record.clientId, record.wallet, {
    generation: record.walletGeneration ?? 0,
    region: record.walletRegion ?? null,
  });
  const keys = [
    chargeKey(record.id),
    ...record.lines.map((line) => refundKey(record.id, line.sku)),
    voidKey(record.id),
  ];
  const entries = await Promise.all(keys.map((key) => wallet.entry(key) as Promise<LedgerEntry | null>));
  return entries.filter((entry): entry is LedgerEntry => entry !== null).sort((a, b) => a.seq - b.seq);
}

/** Which code was revealed: the line and the pin's index in it. */
interface Revealed {
  line: number;
  pin: number;
}

function codes(record: OrderRecord, mayReveal: boolean, revealed: Revealed | null): Html {
  const rows = record.lines.flatMap((line, lineIndex) =>
    (line.redeem?.pins ?? []).map((pin, pinIndex) => {
      const shown = revealed?.line === lineIndex && revealed.pin === pinIndex;
      const action = shown
        ? html`<strong>Revealed (audited)</strong>`
        : mayReveal
          ? html`<form method="post" class="inline"><input type="hidden" name="line" value="${lineIndex}" /><input type="hidden" name="pin" value="${pinIndex}" />
              <button type="submit" class="quiet" aria-label="Reveal code ${pinIndex + 1} of ${line.sku}">Reveal</button></form>`
          : html`<span class="hint">needs the operator role</span>`;
      return html`<tr><td>${line.sku}</td><td class="num">${pinIndex + 1}</td><td class="mono">${shown ? pin : maskedCode(pin)}</td><td>${action}</td></tr>`;
    }),
  );
  if (rows.length === 0) return html`<p>No redeem codes (yet).</p>`;
  return html`<table><caption>Redeem codes (masked; revealing one is written to the audit log)</caption>
    <thead><tr><th scope="col">SKU</th><th scope="col" class="num">#</th><th scope="col">Code</th><th scope="col">Reveal</th></tr></thead>
    <tbody>${rows}</tbody></table>`;
}

/** The receiver's last answer to an event, in words. */
function lastAnswer(answer: DeliveryAnswer): Html {
  const said = answer.status === null ? (answer.error ?? "no answer") : `HTTP ${answer.status}`;
  const what = {
    delivered: "delivered",
    retrying: "failed; the queue tries again",
    dead_lettered: "failed; given up (a dead letter)",
  }[answer.outcome];
  const why =
    answer.outcome !== "delivered" && answer.status !== null && answer.error !== null ? html` (${answer.error})` : "";
  return html`<div>attempt ${answer.attempts}, ${when(answer.answeredAt)}: ${said}${why}, ${what}</div>`;
}

/**
 * Each event's delivery: handed to the queue or not, the receiver's last answer (kept in the order's row
 * in its client's books, src/books/answer-flow.ts), and
 * its dead letters with their replays.
 */
function webhookDeliveries(
  record: OrderRecord,
  events: { eventId: string; state: string; at: number; sent: boolean }[],
  answers: Map<string, DeliveryAnswer>,
  deadLetters: DeadLetter[],
): Html {
  if (record.webhookUrl === null) return html`<p>The order has no webhook URL: no events are sent.</p>`;
  if (events.length === 0) return html`<p>No event yet.</p>`;
  const rows = events.map((event) => {
    const letters = deadLetters.filter((letter) => letter.eventId === event.eventId);
    const answer = answers.get(event.eventId);
    const queued = event.sent
      ? answer === undefined
        ? "handed to the queue; no answer recorded yet"
        : ""
      : "waiting to be handed to the queue";
    const outcome = html`${queued}${answer === undefined ? "" : lastAnswer(answer)}${letters.map(
      (
        letter,
      ) => html`<div>dead letter: failed after ${letter.attempts ?? "the queue's"} attempts at ${when(letter.failedAt)}: ${letter.lastError}
              ${letter.replayedAt !== null ? html` (replayed ${when(letter.replayedAt)})` : " (waiting)"}</div>`,
    )}`;
    return html`<tr><td class="mono">${event.eventId}</td><td>${event.state}</td><td>${when(event.at)}</td><td>${outcome}</td></tr>`;
  });
  return html`<table><thead><tr><th scope="col">Event</th><th scope="col">State</th><th scope="col">At</th><th scope="col">Delivery</th></tr></thead>
    <tbody>${rows}</tbody></table>`;
}

/** The receivers' last answers to the order's events, by event id: from its row in its client's books. */
async function answersOf(env: Env, record: OrderRecord, events: unknown[]): Promise<Map<string, DeliveryAnswer>> {
  const booked = events.length === 0 ? null : await bookedRow(env, record);
  return new Map(Object.entries(booked?.deliveries ?? {}));
}

async function draw(ctx: PageContext, revealed: Revealed | null): Promise<Html | null> {
  const { env, operator, params } = ctx;
  const record = await orderRecordById(env.ORDERS, params.orderId!);
  if (record === null) return null;
  const stub = env.ORDERS.get(objectIdOf(env.ORDERS, record.id)!);
  const [movements, failure, events] = await Promise.all([
    movementsOf(env, record),
    timerFailureOfOrder(env.DB, record.id),
    stub.webhookEvents(),
  ]);
  const eventIds = events.map((event) => event.eventId);
  const [deadLetters, answers] = await Promise.all([
    deadLettersOfEvents(env.DB, eventIds),
    answersOf(env, record, events),
  ]);
  // What happened, in time order: created, the ledger's movements, each announced state, the state now.
  const moments: { at: number; item: Html }[] = [
    { at: record.createdAt, item: html`<strong>created</strong> (expires unconfirmed at ${when(record.expiresAt)})` },
  ];
  for (const entry of movements) {
    const text =
      entry.kind === "order_charge"
        ? "charged"
        : entry.kind === "order_void"
          ? "voided (expired unconfirmed)"
          : entry.kind.replace("order_", "");
    moments.push({
      at: entry.createdAt,
      item: html`<strong>${text}</strong>: ${amount(entry.amount, record.wallet)} (ledger #${entry.seq})`,
    });
  }
  for (const event of events)
    moments.push({ at: event.at, item: html`<strong>${event.state}</strong> (webhook event ${event.eventId})` });
  if (!events.some((event) => event.state === record.state) && record.state !== "created") {
    moments.push({ at: record.modifiedAt, item: html`<strong>${record.state}</strong>` });
  }
  moments.sort((a, b) => a.at - b.at);
  const timeline = [
    ...moments.map(({ at, item }) => html`<li>${when(at)}: ${item}</li>`),
    html`<li>Now: <strong>${record.state}</strong>, invoice ${record.invoiceStatus}, last changed ${when(record.modifiedAt)}</li>`,
  ];
  const deliveries = webhookDeliveries(record, events, answers, deadLetters);
  const lines = record.lines.map(
    (
      line,
    ) => html`<tr><td>${line.sku}</td><td>${line.product.name}</td><td class="num">${line.quantity} × ${amount(line.quote, line.product.currency)}</td>
      <td class="num">${amount(line.charge, record.wallet)}</td><td>${line.product.supplier}</td><td>${line.status}</td><td class="num">${line.attempts}</td>
      <td>${line.failureReason ?? ""}</td><td class="num">${amount(line.refunded, record.wallet)}</td></tr>`,
  );
  const stuck =
    failure === null
      ? html`<p>No failing timer.</p>`
      : html`<p class="notice bad">Timer <strong>${failure.timer}</strong> has failed ${failure.failures} times since ${when(failure.firstFailedAt)}:
          ${failure.lastError}. Next attempt at ${when(failure.nextAttemptAt)}.</p>`;
  const body = html`
    <dl class="facts">
      <dt>Client</dt><dd><a href="${path("/console/clients", record.clientId)}">${record.clientId}</a></dd>
      <dt>Reference</dt><dd>${record.reference}</dd>
      <dt>Wallet</dt><dd><a href="${path("/console/wallets", record.clientId, record.wallet)}">${record.wallet}</a>, charge ${amount(record.charge, record.wallet)}</dd>
      <dt>Webhook URL</dt><dd>${record.webhookUrl ?? "none"}</dd>
    </dl>
    <section aria-labelledby="timeline-title"><h2 id="timeline-title">Timeline</h2><ol>${timeline}</ol></section>
    <section aria-labelledby="lines-title"><h2 id="lines-title">Lines</h2>
      <table><thead><tr><th scope="col">SKU</th><th scope="col">Product</th><th scope="col" class="num">Quantity</th><th scope="col" class="num">Charge</th>
      <th scope="col">Supplier</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col">Failure</th>
      <th scope="col" class="num">Refunded</th></tr></thead><tbody>${lines}</tbody></table></section>
    <section aria-labelledby="webhooks-title"><h2 id="webhooks-title">Webhook deliveries</h2>${deliveries}</section>
    <section aria-labelledby="timers-title"><h2 id="timers-title">Timers</h2>${stuck}</section>
    <section aria-labelledby="codes-title"><h2 id="codes-title">Codes</h2>${codes(record, roleAllows(operator.role, "operator"), revealed)}</section>`;
  return layout({ title: `Order ${record.id}`, operator, current: "/console/orders", body });
}

const notFound = (ctx: PageContext) =>
  notFoundPage(ctx.operator, "Order not found", "/console/orders", "No order has this id.");

export async function get(ctx: PageContext): Promise<Html | Response> {
  return (await draw(ctx, null)) ?? notFound(ctx);
}

/** POST: reveal one code. The audit row is written before the code is shown; no row, no code. */
export async function post(ctx: PageContext): Promise<Html | Response> {
  const form = await readForm(ctx.request);
  const line = Number(form.get("line"));
  const pin = Number(form.get("pin"));
  const record = await orderRecordById(ctx.env.ORDERS, ctx.params.orderId!);
  if (record === null) return notFound(ctx);
  const code = Number.isInteger(line) && Number.isInteger(pin) ? record.lines[line]?.redeem?.pins[pin] : undefined;
  if (code === undefined) return (await draw(ctx, null)) ?? notFound(ctx);
  await audit(ctx.env.DB, auditedBy(ctx), "order.code_revealed", `order:${record.id}`, {
    sku: record.lines[line]!.sku,
    index: pin,
  });
  return (await draw(ctx, { line, pin })) ?? notFound(ctx);
}
