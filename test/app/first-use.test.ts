/**
 * The routes src/app.ts loads on first use (the operator's, GET /openapi.json, GET /docs) answer their
 * first request as the Worker answered it when every route was loaded at start-up: 405 with Allow, 404,
 * the document, the page. The first requests of this file are the first of the Worker under each prefix.
 * (scripts/check-startup.mjs checks that these modules are not evaluated at start-up.)
 */
import { describe, expect, it } from "vitest";
import { call, seedDemo } from "../helpers";
import { admin } from "../admin-helpers";

describe("routes loaded on first use", () => {
  it("answer their first requests like every other route", async () => {
    const wrongMethod = await admin("DELETE", "/admin/clients");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST, GET");
    expect(wrongMethod.body).toEqual({
      message: "Method Not Allowed",
      code: "method_not_allowed",
      details: { allow: "POST, GET" },
    });
    expect(wrongMethod.headers.get("x-request-id")).toBeTruthy();

    const unknown = await admin("GET", "/admin/nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: "Not Found", code: "route_not_found" });

    const postDocument = await call("POST", "/openapi.json", { key: null });
    expect(postDocument.status).toBe(405);
    expect(postDocument.headers.get("allow")).toBe("GET");

    const page = await call("GET", "/docs", { key: null });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect((await call("GET", "/docs/nope.js", { key: null })).body).toEqual({
      message: "Not Found",
      code: "route_not_found",
    });

    const document = await call("GET", "/openapi.json", { key: null });
    expect(document.status).toBe(200);
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining(["/admin/clients", "/order/create", "/wallets"]),
    );

    await seedDemo();
    expect((await admin("GET", "/admin/clients", undefined, { token: null })).status).toBe(403);
    const clients = await admin("GET", "/admin/clients");
    expect(clients.status, JSON.stringify(clients.body)).toBe(200);
    expect(clients.body.data.clients.map(({ id }: { id: string }) => id)).toContain("demo");
  });

  it("leave the client's routes as they were: 405 with Allow, 404", async () => {
    const wrongMethod = await call("PUT", "/wallets");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET");
    expect((await call("GET", "/order/nope")).body).toEqual({ message: "Not Found", code: "route_not_found" });
  });
});
