/**
 * A declared route (src/http/route.ts `route`): the router reads the parts it declares, with their schemas
 * or their readers, before its handler runs (src/http/inputs.ts), and the handler gets them typed and
 * valid; the document lists the 400s of those parts and the errors its checks name. The type checks at the
 * end are compiled by `tsc --noEmit` (npm test): each `@ts-expect-error` fails the typecheck if the line
 * under it compiles.
 */
import { env } from "cloudflare:workers";
import type { IRequest } from "itty-router";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import * as zm from "zod/mini";
import { buildOpenApi } from "../../src/http/openapi";
import { route, type Route } from "../../src/http/route";
import { createRouter } from "../../src/http/router";
import { fail } from "../../src/kernel/failures";

const exec = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;

const Params = z.object({ sku: z.string().regex(/^[A-Z-]+$/) });
const Query = z.object({ limit: z.coerce.number().int().min(1).max(5).optional() });
const Body = z.object({ name: z.string().min(1) });
const Answer = z.object({ sku: z.string(), limit: z.number(), name: z.string(), by: z.string() });

const seen: string[] = [];

const operatorRoute = route(
  {
    method: "PUT",
    path: "/admin/things/:sku",
    operationId: "putThing",
    tag: "Things",
    summary: "A thing",
    auth: "admin",
    role: "operator",
    params: Params,
    query: Query,
    body: Body,
    data: Answer,
    messages: ["Thing saved"],
    errors: [],
  },
  async ({ params, query, body, caller, ok }) => {
    seen.push(params.sku);
    return ok("Thing saved", { sku: params.sku, limit: query.limit ?? 1, name: body.name, by: caller.role });
  },
);

/** The client's order id, read without zod when plainly valid; the mini schema, loaded on first need, decides the rest. */
const schemaLoads: string[] = [];
const OrderIdBody = zm.object({ orderId: zm.string().check(zm.minLength(3)) });
const clientRoute = route(
  {
    method: "POST",
    path: "/things/confirm",
    operationId: "confirmThing",
    tag: "Things",
    summary: "Confirm a thing",
    auth: "apiKey",
    scope: "orders:write",
    body: {
      schema: async () => {
        schemaLoads.push("loaded");
        return OrderIdBody;
      },
      read: (raw) => {
        const id = (raw as { orderId?: unknown } | null)?.orderId;
        return typeof id === "string" && /^ord_\w+$/.test(id) ? { orderId: id } : null;
      },
      refusal: "invalid_order_id",
    },
    data: z.object({ orderId: z.string(), client: z.string() }),
    messages: ["Confirmed"],
    checks: [
      { when: "The body has a valid `orderId`", codes: ["invalid_order_id"] },
      { when: "An order has that id", codes: ["order_not_found"] },
    ],
  },
  async ({ body, client, ok }) => {
    if (body.orderId === "ord_missing") fail("order_not_found");
    return ok("Confirmed", { orderId: body.orderId, client: client.id });
  },
);

const uploadRoute = route(
  {
    method: "POST",
    path: "/admin/uploads",
    operationId: "upload",
    tag: "Things",
    summary: "An upload",
    auth: "admin",
    role: "operator",
    body: { schema: Body, from: async (request) => ({ name: (await request.text()).trim() }) },
    data: Body,
    messages: ["Uploaded"],
    errors: [],
  },
  async ({ body, ok }) => ok("Uploaded", body),
);

const handle = createRouter([operatorRoute, clientRoute, uploadRoute], {
  authenticate: async (request) => {
    const authorization = request.headers.get("authorization");
    if (authorization === "Bearer sk_test_reader")
      return { id: "demo", keyHash: "r", scopes: ["orders:read", "books:read"], allowList: null };
    if (authorization !== "Bearer sk_test_demo") fail("unauthenticated");
    return { id: "demo", keyHash: "d", scopes: ["orders:write", "orders:read", "books:read"], allowList: null };
  },
  authorizeOperator: async () => ({
    actor: { kind: "break-glass", label: "admin:test" },
    role: "admin",
    requestId: "r",
  }),
  afterOperatorWrite: () => {},
});

async function send(method: string, path: string, body?: string, key: string | null = "sk_test_demo") {
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
  const response = await handle(new Request(`http://orders.test${path}`, { method, body, headers }), env, exec);
  return { status: response.status, body: (await response.json()) as any };
}

describe("a declared operator route", () => {
  it("hands its handler the path, query and body read by their schemas, and the caller", async () => {
    const answer = await send("PUT", "/admin/things/EU-VOUCHER?limit=3", JSON.stringify({ name: "Voucher" }));
    expect(answer).toEqual({
      status: 200,
      body: { message: "Thing saved", data: { sku: "EU-VOUCHER", limit: 3, name: "Voucher", by: "admin" } },
    });
  });

  it("answers the first part its schema refuses, path then query then body, with the issues, and runs no handler", async () => {
    seen.length = 0;
    const badPath = await send("PUT", "/admin/things/eu?limit=9", "{}");
    expect(badPath.status).toBe(400);
    expect(badPath.body.code).toBe("invalid_parameters");
    expect(badPath.body.details.issues[0].path).toBe("sku");
    const badQuery = await send("PUT", "/admin/things/EU?limit=9", "{}");
    expect(badQuery.body).toMatchObject({ code: "invalid_parameters", details: { issues: [{ path: "limit" }] } });
    const repeated = await send("PUT", "/admin/things/EU?limit=1&limit=2", JSON.stringify({ name: "x" }));
    expect(repeated.body.code).toBe("invalid_parameters");
    const badBody = await send("PUT", "/admin/things/EU", JSON.stringify({ name: "" }));
    expect(badBody.body).toMatchObject({ code: "invalid_request_body", details: { issues: [{ path: "name" }] } });
    expect((await send("PUT", "/admin/things/EU", "{")).body.code).toBe("malformed_json");
    const encoding = await send("PUT", "/admin/things/%E0%A4%A", JSON.stringify({ name: "x" }));
    expect(encoding.body).toMatchObject({
      code: "invalid_parameters",
      details: { reason: "path is not valid percent-encoding" },
    });
    expect(seen).toEqual([]);
  });

  it("reads a body its own way when the route says how (`from`), then checks it with the schema", async () => {
    expect((await send("POST", "/admin/uploads", "  codes  ")).body.data).toEqual({ name: "codes" });
    expect((await send("POST", "/admin/uploads", "   ")).body.code).toBe("invalid_request_body");
  });
});

describe("a declared client route", () => {
  it("finds its client before it reads a part: an unknown key with a bad body is 403", async () => {
    expect((await send("POST", "/things/confirm", "{", "sk_wrong")).body.code).toBe("unauthenticated");
  });

  it("checks the key's scope before it reads a part: a key without it is 403 insufficient_scope", async () => {
    const refused = await send("POST", "/things/confirm", "{", "sk_test_reader");
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      message: "This API key does not have the scope this route needs",
      code: "insufficient_scope",
      details: { needed: "orders:write", scopes: ["orders:read", "books:read"] },
    });
  });

  it("is not routed without a scope: every client route says which scope it needs (null: any key)", () => {
    const { scope: _scope, ...unscoped } = clientRoute;
    const parts = { authenticate: async () => ({}) as never, authorizeOperator: async () => ({}) as never };
    expect(() => createRouter([unscoped as Route], { ...parts, afterOperatorWrite: () => {} })).toThrow(
      "POST /things/confirm is a client route without a scope",
    );
  });

  it("reads a plainly valid part without loading its schema, and leaves the rest to the schema", async () => {
    schemaLoads.length = 0;
    const confirmed = await send("POST", "/things/confirm", JSON.stringify({ orderId: "ord_1" }));
    expect(confirmed.body).toEqual({ message: "Confirmed", data: { orderId: "ord_1", client: "demo" } });
    expect(schemaLoads).toEqual([]);
    // Not the reader's form, but the schema's: accepted by the schema.
    const left = await send("POST", "/things/confirm", JSON.stringify({ orderId: "abc" }));
    expect(left.body.data).toEqual({ orderId: "abc", client: "demo" });
    expect(schemaLoads).toEqual(["loaded"]);
  });

  it("answers a body it cannot read, or its schema refuses, with the body's own refusal (a 413 stays)", async () => {
    const refused = await send("POST", "/things/confirm", JSON.stringify({ orderId: "x" }));
    expect(refused.body).toMatchObject({ code: "invalid_order_id", details: { issues: [{ path: "orderId" }] } });
    const unreadable = await send("POST", "/things/confirm", "");
    expect(unreadable.body).toMatchObject({ code: "invalid_order_id", details: { reason: "body is empty" } });
    const large = await send("POST", "/things/confirm", JSON.stringify({ orderId: "x".repeat(70_000) }));
    expect(large.status).toBe(413);
    expect((await send("POST", "/things/confirm", JSON.stringify({ orderId: "ord_missing" }))).status).toBe(404);
  });
});

describe("the document of declared routes", () => {
  it("lists the 400s of each declared part and the errors the checks name, nothing by hand", async () => {
    const parts = { named: [], tags: [{ name: "Things", description: "" }], description: "" };
    const doc = (await buildOpenApi([operatorRoute, clientRoute], parts)) as any;
    const put = doc.paths["/admin/things/{sku}"].put.responses;
    expect(Object.keys(put["400"].content["application/json"].schema.discriminator.mapping)).toEqual([
      "malformed_json",
      "invalid_request_body",
      "invalid_parameters",
    ]);
    const post = doc.paths["/things/confirm"].post;
    expect(Object.keys(post.responses).sort()).toEqual(["200", "400", "403", "404", "413", "429", "500"]);
    // A client route's 403s: its key's, its allow-list's and its scope's; its security names the scope.
    expect(Object.keys(post.responses["403"].content["application/json"].schema.discriminator.mapping)).toEqual([
      "unauthenticated",
      "wrong_environment",
      "ip_not_allowed",
      "insufficient_scope",
    ]);
    expect(post.security).toEqual([{ apiKey: ["orders:write"] }]);
    expect(post.responses["400"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/InvalidOrderIdError",
    });
    expect(post.responses["404"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/OrderNotFoundError",
    });
  });
});

// What the compiler refuses: never run, only typechecked.
export const refused: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/a",
      operationId: "a",
      tag: "T",
      summary: "",
      auth: "admin",
      role: "viewer",
      data: Body,
      messages: ["A"],
      errors: [],
    },
    // @ts-expect-error A route that declares no body is given none.
    async ({ body, ok }) => ok("A", body),
  ),
  route(
    {
      method: "GET",
      path: "/admin/b",
      operationId: "b",
      tag: "T",
      summary: "",
      auth: "admin",
      role: "viewer",
      query: Query,
      data: Body,
      messages: ["B"],
      errors: [],
    },
    // @ts-expect-error The query is what its schema parses: `limit` is a number, not the raw text.
    async ({ query, ok }) => ok("B", { name: query.limit }),
  ),
  route(
    {
      method: "GET",
      path: "/admin/c",
      operationId: "c",
      tag: "T",
      summary: "",
      auth: "admin",
      role: "viewer",
      data: Body,
      messages: ["C"],
      errors: [],
    },
    // @ts-expect-error An answer with a field the route does not declare.
    async ({ ok }) => ok("C", { name: "x", extra: 1 }),
  ),
  route(
    {
      method: "GET",
      path: "/admin/d",
      operationId: "d",
      tag: "T",
      summary: "",
      auth: "admin",
      role: "viewer",
      data: Body,
      messages: ["D"],
      errors: [],
    },
    // @ts-expect-error A message the route does not declare.
    async ({ ok }) => ok("Done", { name: "x" }),
  ),
  route(
    {
      method: "GET",
      path: "/admin/e",
      operationId: "e",
      tag: "T",
      summary: "",
      auth: "admin",
      role: "viewer",
      data: Body,
      messages: ["E"],
      errors: [],
    },
    // @ts-expect-error A Response the route's `ok` did not make.
    async () => new Response(JSON.stringify({ message: "E", data: { name: 1 } })),
  ),
  route(
    {
      method: "GET",
      path: "/f",
      operationId: "f",
      tag: "T",
      summary: "",
      auth: "apiKey",
      data: Body,
      messages: ["F"],
      errors: [],
    },
    // @ts-expect-error A client's route has no operator caller.
    async ({ caller, ok }) => ok("F", { name: caller.actor.label }),
  ),
  route(
    // @ts-expect-error A route with checks answers the codes they name; it lists no errors besides.
    {
      method: "GET",
      path: "/admin/g",
      operationId: "g",
      tag: "T",
      summary: "",
      auth: "admin",
      role: "viewer",
      data: Body,
      errors: ["sku_not_found"],
      checks: [{ when: "x", codes: ["sku_not_found"] }],
    },
    async ({ ok }) => ok("G", { name: "x" }),
  ),
  {
    method: "GET",
    path: "/admin/h/:sku",
    operationId: "h",
    tag: "T",
    summary: "",
    auth: "admin",
    role: "viewer",
    params: Params,
    data: Body,
    errors: [],
    // @ts-expect-error Every route is declared: none is handed its request to read a part unchecked.
    handler: async (request: IRequest) => new Response(String(request.params.sku)),
  },
];
