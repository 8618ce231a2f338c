/** GET /health: no authentication, no internals; 200 when D1 and a Durable Object answer, 503 when either does not. */
import { afterEach, describe, expect, it } from "vitest";
import { armFault, clearFaults, firedFaults } from "../../src/kernel/faults";
import { HEALTH_SEAMS } from "../../src/health";
import { call } from "../helpers";

afterEach(() => clearFaults());

describe("GET /health", () => {
  it("answers 200 without any authentication, and is never cached", async () => {
    const response = await call("GET", "/health", { key: null });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: "OK", data: { status: "ok" } });
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("answers 200 whatever credentials come with it (it reads none)", async () => {
    for (const key of ["sk_test_not-a-key", "test-admin-token"]) {
      expect((await call("GET", "/health", { key })).status).toBe(200);
    }
  });

  for (const [probe, seam] of Object.entries(HEALTH_SEAMS)) {
    for (const when of ["before", "after"] as const) {
      it(`answers 503 when the ${probe} probe fails (${when} the call), saying nothing of which or why`, async () => {
        armFault(seam, { when });
        const response = await call("GET", "/health", { key: null });
        expect(firedFaults()).toEqual([`${seam}:${when}`]);
        expect(response.status).toBe(503);
        expect(response.body).toEqual({ message: "Service unavailable", code: "service_unavailable" });
        expect(response.headers.get("retry-after")).toBe("5");
        // The next check, with the fault gone, is healthy again.
        expect((await call("GET", "/health", { key: null })).status).toBe(200);
      });
    }
  }

  it("is GET only", async () => {
    const response = await call("POST", "/health", { key: null, body: {} });
    expect(response.status).toBe(405);
  });
});
