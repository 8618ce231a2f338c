/**
 * Dual control tried as one dishonest person would, in live mode (docs/operator-api.md, Dual control): one
 * scenario per path that once moved unlimited money alone (splitting, raising the limit, a currency
 * without one, operators minted for the purpose, a restore, an idempotency key used again). In each, the
 * money that moved without a second, independent person is at most the currency's approval limit.
 *
 * Colleagues of long standing are operators whose `created_at` is set days back: the rules about minted
 * colleagues judge an operator by when (and by whom) it was made.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { derivedHmacKey, toBase64 } from "../../src/kernel/crypto";
import { Money } from "../../src/pricing/money";
import { topUpKey } from "../../src/wallets/ledger-keys";
import { ADMIN_TOKEN, admin } from "../admin-helpers";
import { addClient, topUp, wallet } from "../helpers";

const DAY = 24 * 60 * 60 * 1000;
const LIMIT = 1000;

async function setLimit(currency: string, amount: string): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO approval_limits (currency, amount, updated_at) VALUES (?1, ?2, 0)
     ON CONFLICT (currency) DO UPDATE SET amount = excluded.amount`,
  )
    .bind(currency, amount)
    .run();
}

/** An operator made by the break-glass token `daysAgo` days ago (0: now), and its token. */
async function colleague(name: string, role: "operator" | "admin", daysAgo: number, by = ADMIN_TOKEN) {
  const made = await admin("POST", "/admin/operators", { name, role }, { token: by });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const id = made.body.data.operator.id as string;
  if (daysAgo > 0)
    await env.DB.prepare(`UPDATE operators SET created_at = ?2 WHERE id = ?1`)
      .bind(id, Date.now() - daysAgo * DAY)
      .run();
  return { id, token: made.body.data.token as string };
}

const balance = async (clientId: string, currency = "USD") => new Money(await wallet(clientId, currency).balance());

function topUpBy(token: string, clientId: string, amount: string, key: string, currency = "USD") {
  return admin(
    "POST",
    `/admin/wallets/${clientId}/${currency}/top-ups`,
    { amount, idempotencyKey: key, reason: `${key} by one person` },
    { token },
  );
}

function adjustBy(token: string, clientId: string, amount: string, key: string) {
  return admin(
    "POST",
    `/admin/wallets/${clientId}/USD/adjustments`,
    { amount, idempotencyKey: key, reason: `${key} by one person` },
    { token },
  );
}

/** What the entries under these idempotency keys moved, whatever their sign. */
async function movedUnder(clientId: string, keys: string[], currency = "USD"): Promise<Money> {
  const entries = await wallet(clientId, currency).entries(0, 10_000);
  return entries
    .filter((entry) => keys.some((key) => entry.key.endsWith(`:${key}`)))
    .reduce((sum, entry) => sum.plus(new Money(entry.amount).abs()), new Money(0));
}

/** Approves a posting request as `token`: what the answer said. */
async function approve(id: number, token: string) {
  return admin("POST", `/admin/posting-requests/${id}/approve`, undefined, { token });
}

/** Approves as `token` and expects the refusal of a colleague who is not another person, for `why`. */
async function refusedApproval(id: number | undefined, token: string, why: RegExp) {
  expect(id, "the posting waits as a request").toBeDefined();
  const answer = await approve(id!, token);
  expect(answer.status, JSON.stringify(answer.body)).toBe(403);
  expect(answer.body).toMatchObject({ code: "decider_not_allowed" });
  expect(answer.body.details.reason).toMatch(why);
}

beforeAll(async () => {
  await setLimit("USD", String(LIMIT));
});

describe("one person cannot move more than the limit in a day", () => {
  it("by splitting: five top-ups of the limit, and adjustments back and forth", async () => {
    const rita = await colleague("Split Rita", "operator", 10);
    await addClient("split", { USD: "0" });
    const keys = [0, 1, 2, 3, 4].map((n) => `split-${n}`);
    const answers = [];
    for (const key of keys) answers.push((await topUpBy(rita.token, "split", String(LIMIT), key)).body.message);
    expect((await balance("split")).toNumber()).toBeLessThanOrEqual(LIMIT);
    expect(answers.slice(1)).toEqual(Array(4).fill("Posting awaits approval"));

    const otto = await colleague("Split Otto", "operator", 10);
    await addClient("swing", { USD: "0" });
    await topUp("swing", "USD", "5000");
    const swings = ["+600", "-600", "+600", "-600"].map((amount, n) => ({ amount, key: `swing-${n}` }));
    for (const { amount, key } of swings) await adjustBy(otto.token, "swing", amount, key);
    const moved = await movedUnder(
      "swing",
      swings.map((swing) => swing.key),
    );
    expect(moved.toNumber()).toBeLessThanOrEqual(LIMIT);
  });

  it("by raising the limit, posting, and setting it back", async () => {
    const ada = await colleague("Raise Ada", "admin", 10);
    await addClient("raise-ada", { USD: "0" });
    await addClient("raise-glass", { USD: "0" });
    for (const [token, clientId] of [
      [ada.token, "raise-ada"],
      [ADMIN_TOKEN, "raise-glass"],
    ] as const) {
      await admin("PUT", "/admin/approval-limits/USD", { limit: 1e12 }, { token });
      await topUpBy(token, clientId, "500000", `${clientId}-big`);
      await admin("PUT", "/admin/approval-limits/USD", { limit: LIMIT }, { token });
      expect((await balance(clientId)).toNumber(), clientId).toBeLessThanOrEqual(LIMIT);
    }
    const limits = await admin("GET", "/admin/approval-limits");
    expect(limits.body.data.limits.find((l: { currency: string }) => l.currency === "USD").limit).toBe(LIMIT);
  });

  it("in a currency without a limit: nothing moves alone", async () => {
    const olga = await colleague("Currency Olga", "operator", 10);
    await addClient("new-currency", {});
    await topUpBy(olga.token, "new-currency", "900000", "gbp-big", "GBP");
    await topUpBy(olga.token, "new-currency", "1", "gbp-small", "GBP");
    expect((await balance("new-currency", "GBP")).toNumber()).toBe(0);
  });

  it("through operators it mints: a minted colleague is not a second person", async () => {
    await addClient("minted", { USD: "0" });
    const asked: number[] = [];
    const ask = async (token: string, key: string) => {
      const answer = await topUpBy(token, "minted", "5000", key);
      if (answer.body.data?.request?.id !== undefined) asked.push(answer.body.data.request.id);
      return answer.body.data?.request?.id as number | undefined;
    };
    // The break-glass token makes two operators now, asks as one and approves as the other.
    const a = await colleague("Minted A", "operator", 0);
    const b = await colleague("Minted B", "operator", 0);
    const first = await ask(a.token, "minted-ab");
    await refusedApproval(first, b.token, /within a day of the operator who asked/);
    // Two made together, days ago: still one person's.
    const c = await colleague("Minted C", "operator", 3);
    const d = await colleague("Minted D", "operator", 3);
    const second = await ask(c.token, "minted-cd");
    await refusedApproval(second, d.token, /within a day of the operator who asked/);
    // An admin of long standing makes an operator, which asks; the admin approves.
    const x = await colleague("Minting admin X", "admin", 10);
    const r = await colleague("Made by X", "operator", 3, x.token);
    const third = await ask(r.token, "minted-xr");
    await refusedApproval(third, x.token, /an operator it made/);
    // Made by the same admin within a day of each other, days ago: one asks, the other approves.
    const e = await colleague("Made by X, E", "operator", 3, x.token);
    const f = await colleague("Made by X, F", "operator", 3, x.token);
    const fourth = await ask(e.token, "minted-ef");
    await refusedApproval(fourth, f.token, /within a day of the operator who asked/);
    // A colleague made the day the request was asked: whoever asked could have made it.
    const late = await colleague("Made today", "operator", 0);
    await refusedApproval(fourth, late.token, /less than a day before the request/);
    expect(await balance("minted")).toEqual(new Money(0));

    // Postings within the limit by the token and by operators it just made share one window.
    await addClient("minted-window", { USD: "0" });
    const g = await colleague("Minted G", "operator", 0);
    const h = await colleague("Minted H", "operator", 0);
    for (const [token, key] of [
      [g.token, "g"],
      [h.token, "h"],
      [ADMIN_TOKEN, "glass"],
    ] as const)
      await topUpBy(token, "minted-window", String(LIMIT), `window-${key}`);
    expect((await balance("minted-window")).toNumber()).toBeLessThanOrEqual(LIMIT);
  });

  it("by restoring a ledger the break-glass token signed itself", async () => {
    await addClient("restored", {});
    const exported = {
      format: "order-service/wallet-ledger/1",
      clientId: "restored",
      currency: "USD",
      exportedAt: Date.now(),
      balance: "900000",
      entries: [
        {
          seq: 1,
          key: topUpKey("made-up"),
          kind: "top_up",
          amount: "900000",
          balanceAfter: "900000",
          orderId: null,
          reason: "made up",
          createdAt: Date.now() - DAY,
        },
      ],
      voids: [] as { orderId: string; voidedAt: number; reason: string | null }[],
    };
    // What anyone holding ADMIN_TOKEN could compute: the signature exports carried before their own key.
    const bytes = new TextEncoder().encode(
      JSON.stringify([
        exported.format,
        exported.clientId,
        exported.currency,
        exported.exportedAt,
        exported.balance,
        exported.entries.map((e) => [e.seq, e.key, e.kind, e.amount, e.balanceAfter, e.orderId, e.reason, e.createdAt]),
        [],
      ]),
    );
    const mac = await crypto.subtle.sign("HMAC", await derivedHmacKey(ADMIN_TOKEN, "ledger-export-v1"), bytes);
    const signature = `v1,${toBase64(new Uint8Array(mac))}`;
    await admin("POST", "/admin/wallets/restored/USD/restore", { ...exported, signature });
    expect((await balance("restored")).toNumber()).toBeLessThanOrEqual(LIMIT);
  });

  it("by asking again under a key the wallet already holds", async () => {
    const ursula = await colleague("Reuse Ursula", "operator", 10);
    const sam = await colleague("Reuse Sam", "operator", 5);
    await addClient("reused", { USD: "0" });
    // A top-up posted alone before the limit was lowered (as one posted before this release would be).
    const posted = await wallet("reused", "USD").post({
      key: topUpKey("reused-key"),
      kind: "top_up",
      amount: "800",
      reason: "posted alone",
    });
    expect(posted.ok).toBe(true);
    await admin("PUT", "/admin/approval-limits/USD", { limit: 500 });
    for (const amount of ["800", "900"]) {
      const again = await topUpBy(ursula.token, "reused", amount, "reused-key");
      expect(again.status, JSON.stringify(again.body)).toBe(409);
      expect(again.body.code).toBe("idempotency_key_posted");
      if (again.body.data?.request?.id !== undefined) await approve(again.body.data.request.id, sam.token);
    }
    const { results } = await env.DB.prepare(
      `SELECT status FROM posting_requests WHERE client_id = 'reused' AND status <> 'posted'`,
    ).all();
    expect(results).toEqual([]);
    expect((await balance("reused")).toNumber()).toBe(800);
    await setLimit("USD", String(LIMIT));
  });
});

describe("a restore writes its audit row only when it wrote", () => {
  it("posting a wallet's own export back into it changes nothing and audits nothing", async () => {
    const nora = await colleague("Restoring Nora", "admin", 10);
    await addClient("noop-restore", { USD: "0" });
    await topUp("noop-restore", "USD", "250");
    const exported = await admin("GET", "/admin/wallets/noop-restore/USD/export");
    expect(exported.status).toBe(200);
    const again = await admin("POST", "/admin/wallets/noop-restore/USD/restore", exported.body.data, {
      token: nora.token,
    });
    expect(again.status).toBe(409);
    const { results } = await env.DB.prepare(
      `SELECT id FROM audit_log WHERE action = 'wallet.restore' AND target = 'wallet:noop-restore:USD'`,
    ).all();
    expect(results).toEqual([]);
  });
});
