import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { seedDemo, topUp } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { admin, snapshot } from "../admin-helpers";

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "1000");
});

describe("dead-lettered webhooks", () => {
  beforeEach(() => {
    for (const level of ["log", "warn", "error"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function deadLetter(eventId: string, clientId = "demo"): Promise<number> {
    const message = {
      clientId,
      url: "https://hooks.example.com/orders",
      event: {
        id: eventId,
        type: "order.confirmed",
        createdAt: 1,
        data: { orderId: `ord_${"1".repeat(64)}`, state: "confirmed", reference: "r" },
      },
    };
    const row = await env.DB.prepare(
      `INSERT INTO dead_letters (event_id, client_id, url, message, attempts, last_error, failed_at) VALUES (?1, ?2, ?3, ?4, 8, 'HTTP 503', ?5) RETURNING id`,
    )
      .bind(eventId, clientId, message.url, JSON.stringify(message), Date.now())
      .first<{ id: number }>();
    return row!.id;
  }

  it("lists them newest first and replays one once", async () => {
    const older = await deadLetter("evt_older");
    const newer = await deadLetter("evt_newer");
    const list = await admin("GET", "/admin/webhooks/dead-letters");
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    await expectConforms("GET", "/admin/webhooks/dead-letters", list);
    expect(list.body.data.deadLetters.map((letter: { id: number }) => letter.id)).toEqual([newer, older]);
    const replayed = await admin("POST", `/admin/webhooks/dead-letters/${older}/replay`);
    expect(replayed.status, JSON.stringify(replayed.body)).toBe(200);
    await expectConforms("POST", "/admin/webhooks/dead-letters/{id}/replay", replayed);
    expect(replayed.body.data.deadLetter).toMatchObject({
      id: older,
      eventId: "evt_older",
      replayedAt: expect.any(Number),
    });
    const again = await admin("POST", `/admin/webhooks/dead-letters/${older}/replay`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("dead_letter_already_replayed");
    const pending = await admin("GET", "/admin/webhooks/dead-letters?status=pending&clientId=demo");
    expect(pending.body.data.deadLetters.map((letter: { id: number }) => letter.id)).toEqual([newer]);
    const audit = await admin("GET", `/admin/audit?target=dead_letter:${older}`);
    expect(audit.body.data.entries.map((entry: { action: string }) => entry.action)).toEqual([
      "webhook.dead_letter.replay",
    ]);
  });

  it("404 for an unknown one, 400 for a malformed id or query", async () => {
    const before = await snapshot();
    const unknown = await admin("POST", "/admin/webhooks/dead-letters/999999/replay");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("dead_letter_not_found");
    for (const path of ["/admin/webhooks/dead-letters/abc/replay", "/admin/webhooks/dead-letters/0/replay"]) {
      expect((await admin("POST", path)).status, path).toBe(400);
    }
    for (const query of ["status=lost", "limit=0", "limit=201", "before=x", "clientId=bad%20id"]) {
      expect((await admin("GET", `/admin/webhooks/dead-letters?${query}`)).status, query).toBe(400);
    }
    expect(await snapshot()).toEqual(before);
  });
});
