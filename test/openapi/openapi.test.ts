import { describe, expect, it, vi } from "vitest";
import schema31 from "@seriousme/openapi-schema-validator/schemas/v3.1/schema.json";

// The validator reads its meta-schema with node:fs, which inside workerd has no access to node_modules:
// hand it the same file through the bundler instead.
vi.mock("node:fs", async (importOriginal) => {
  const original = await importOriginal<{ readFileSync: (...args: unknown[]) => unknown }>();
  const readFileSync = (path: unknown, options?: unknown) =>
    String(path).endsWith("/schemas/v3.1/schema.json")
      ? JSON.stringify(schema31)
      : original.readFileSync(path, options);
  return { ...original, default: { ...original, readFileSync }, readFileSync };
});

import { Validator } from "@seriousme/openapi-schema-validator";
import { allRoutes } from "../../src/app";
import { buildOpenApi } from "../../src/http/openapi";
import { call, confirmOrder, createOrder, getOrder, line, seedDemo, topUp } from "../helpers";
import { expectConforms, servedDocument } from "./conformance";

const ROUTES = await allRoutes();

describe("GET /openapi.json", () => {
  it("is served without auth, as JSON, with a request id", async () => {
    const response = await call("GET", "/openapi.json", { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(response.body.openapi).toBe("3.1.0");
  });

  it("is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)", async () => {
    const result = await new Validator().validate((await servedDocument()) as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("the validator does reject a broken document", async () => {
    const broken = structuredClone(await servedDocument()) as any;
    delete broken.paths["/order/create"].post.responses;
    broken.info.version = 1;
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });

  it("describes every routed method and path, and nothing else", async () => {
    const routed = ROUTES.map(({ method, path }) => `${method} ${path}`).sort();
    const doc = await servedDocument();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`),
      )
      .sort();
    expect(documented).toEqual(routed);
  });

  it("refuses to build for a route described twice, an operationId used twice, path parameters its schema does not declare, or an unknown tag", async () => {
    const getOrder = ROUTES.find(({ operationId }) => operationId === "getOrder")!;
    const adminGetOrder = ROUTES.find(({ operationId }) => operationId === "adminGetOrder")!;
    const parts = {
      named: [],
      tags: [...new Set(ROUTES.map(({ tag }) => tag))].map((name) => ({ name, description: name })),
      description: "",
    };
    await expect(buildOpenApi(ROUTES, parts)).resolves.toBeDefined();
    await expect(buildOpenApi([...ROUTES, { ...getOrder, operationId: "getOrderAgain" }], parts)).rejects.toThrow(
      /GET \/order\/get is described twice/,
    );
    await expect(buildOpenApi([...ROUTES, { ...getOrder, path: "/order/get-again" }], parts)).rejects.toThrow(
      /operationId getOrder is described twice/,
    );
    await expect(buildOpenApi([{ ...adminGetOrder, path: "/admin/orders/:id" }], parts)).rejects.toThrow(
      /path parameters id but the schema declares orderId/,
    );
    await expect(buildOpenApi([{ ...getOrder, tag: "Ordres" }], parts)).rejects.toThrow(
      /getOrder: tag Ordres is not one of the document's tags/,
    );
  });

  it("lists a route's checks under its description, from the codes it declares, and refuses checks that drift from them", async () => {
    const doc = (await servedDocument()) as any;
    const create: string = doc.paths["/order/create"].post.description;
    const [prose, checks] = create.split("\n\nChecks, in the order they run (the first that fails answers):\n\n");
    expect(prose).not.toMatch(/\b(400|404|409|500)\b/);
    expect(checks!.split("\n")[0]).toBe(
      "- The Sandbox-Outcome header, when sent: sent in live, or a value it does not know: 400 `sandbox_outcome_in_live`, 400 `invalid_sandbox_outcome`",
    );
    expect(checks).toContain("- Stock, for lines whose codes come from inventory: 500 `out_of_stock`");
    const confirm = ROUTES.find(({ operationId }) => operationId === "confirmOrder")!;
    const parts = { named: [], tags: [{ name: confirm.tag, description: "" }], description: "" };
    const dropped = confirm.checks!.filter(({ codes }) => !codes.includes("insufficient_funds"));
    await expect(buildOpenApi([{ ...confirm, checks: dropped }], parts)).rejects.toThrow(
      /confirmOrder: no check answers insufficient_funds/,
    );
    const foreign = [...confirm.checks!, { when: "The SKU", codes: ["sku_not_found" as const] }];
    await expect(buildOpenApi([{ ...confirm, checks: foreign }], parts)).rejects.toThrow(
      /confirmOrder: checks name sku_not_found, never answered/,
    );
  });

  it("documents every error code a route answers with the error body shape", async () => {
    const doc = (await servedDocument()) as any;
    const create = doc.paths["/order/create"].post.responses;
    expect(Object.keys(create).sort()).toEqual(["200", "400", "403", "404", "409", "413", "429", "500"]);
    expect(Object.keys(create["400"].content["application/json"].schema.discriminator.mapping)).toEqual(
      expect.arrayContaining(["invalid_request_body", "quote_mismatch", "insufficient_funds", "product_list_too_big"]),
    );
    expect(doc.paths["/order/confirm"].put.responses["419"].description).toContain("Expired");
    expect(doc.components.securitySchemes.adminToken.scheme).toBe("bearer");
    expect(doc.paths["/admin/clients"].post.security).toEqual([{ adminToken: [] }]);
    expect(doc.paths["/products"].get.security).toEqual([{ apiKey: [] }]);
  });

  it("matches the checked-in schema/openapi.json (regenerate with `npx vitest run test/openapi -u`)", async () => {
    const response = await call("GET", "/openapi.json", { key: null });
    await expect(`${JSON.stringify(response.body, null, 2)}\n`).toMatchFileSnapshot("../../schema/openapi.json");
  });
});

describe("real responses of the order endpoints match the document", () => {
  it("create, confirm and get, then their errors", async () => {
    await seedDemo();
    await topUp("demo", "USD", "100000");
    const created = await createOrder({ productList: [line("DEMO-EU-FIXED", 25, 2), line("DEMO-JP-RANGE", 1000)] });
    expect(created.status).toBe(200);
    await expectConforms("POST", "/order/create", created);
    const confirmed = await confirmOrder(created.body.data.id);
    expect(confirmed.status).toBe(200);
    await expectConforms("PUT", "/order/confirm", confirmed);
    let got = await getOrder(created.body.data.id);
    for (
      let attempt = 0;
      attempt < 50 && !["successful", "partial", "failed"].includes(got.body.data.state);
      attempt += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      got = await getOrder(created.body.data.id);
    }
    expect(got.status).toBe(200);
    await expectConforms("GET", "/order/get", got);

    // A replay of the same reference, and the errors each endpoint documents.
    const replay = await call("POST", "/order/create", {
      body: { wallet: "USD", reference: "openapi-replay", productList: [line("DEMO-US-RANGE", 10)] },
    });
    await expectConforms("POST", "/order/create", replay);
    const again = await call("POST", "/order/create", {
      body: { wallet: "USD", reference: "openapi-replay", productList: [line("DEMO-US-RANGE", 10)] },
    });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    await expectConforms("POST", "/order/create", again);
    await expectConforms("POST", "/order/create", await createOrder({ productList: [line("DEMO-EU-FIXED", 11)] }));
    await expectConforms("POST", "/order/create", await createOrder({ productList: [line("NOPE", 11)] }));
    await expectConforms("POST", "/order/create", await createOrder({ productList: "x" }));
    await expectConforms("POST", "/order/create", await createOrder({ productList: [line("DEMO-US-SOLDOUT", 10)] }));
    await expectConforms(
      "POST",
      "/order/create",
      await createOrder({ productList: [line("DEMO-US-RANGE", 10)] }, "sk_wrong"),
    );
    await expectConforms("PUT", "/order/confirm", await confirmOrder(created.body.data.id));
    await expectConforms("PUT", "/order/confirm", await call("PUT", "/order/confirm", { body: {} }));
    await expectConforms("PUT", "/order/confirm", await confirmOrder(`ord_${"0".repeat(64)}`));
    await expectConforms("GET", "/order/get", await call("GET", "/order/get"));
    await expectConforms("GET", "/order/get", await getOrder("ord_nope"));
  });

  it("client routes", async () => {
    await seedDemo();
    await expectConforms("GET", "/products", await call("GET", "/products"));
    await expectConforms("GET", "/wallets", await call("GET", "/wallets"));
    await expectConforms("GET", "/wallets", await call("GET", "/wallets", { key: null }));
  });
});

describe("the conformance check itself", () => {
  it("fails a body that differs from the document", async () => {
    const good = {
      status: 200,
      headers: new Headers({ "x-request-id": "r" }),
      body: { message: "Wallets", data: { wallets: [{ currency: "USD", balance: 1 }] } },
    };
    await expectConforms("GET", "/wallets", good);
    await expect(
      expectConforms("GET", "/wallets", {
        ...good,
        body: { message: "Wallets", data: { wallets: [{ currency: "USD" }] } },
      }),
    ).rejects.toThrow();
    await expect(
      expectConforms("GET", "/wallets", { ...good, body: { message: "Wallets", data: { wallets: [], extra: 1 } } }),
    ).rejects.toThrow();
    await expect(expectConforms("GET", "/wallets", { ...good, status: 404 })).rejects.toThrow(/does not document 404/);
  });
});
