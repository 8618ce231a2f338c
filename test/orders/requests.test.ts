/**
 * The readers of src/orders/requests.ts against the schemas of src/orders/order-schemas.ts, both ways: a reader
 * accepts exactly what its schema accepts, with exactly the same result. So reading without zod never lets
 * through what the contract refuses nor changes what it parses, and no valid request has to load zod.
 * Values: valid requests, every string bound and its neighbours counted both in UTF-16 units and in code
 * points (zod counts code points), each field replaced by values of every JSON type, bodies as raw JSON
 * text (-0, `__proto__` keys), and seeded random mixes of those, each as it would arrive (through JSON).
 */
import { describe, expect, it } from "vitest";
import { BOUNDS, readCreateOrder, readOrderId } from "../../src/orders/requests";
import { ConfirmOrderRequest, CreateOrderRequest, GetOrderQuery } from "../../src/orders/order-schemas";

/**
 * Strings at each bound of BOUNDS and one past it on either side: of ASCII, of astral characters (two
 * units, one code point each), lone surrogates (one unit, one code point), surrogates in the wrong order
 * and a mix. BOUNDS itself is the contract's: the schemas are built from it, so the document
 * (test/openapi/openapi.test.ts, against the checked-in schema/openapi.json) is what fails if a bound moves.
 */
const boundaryStrings = [
  ...new Set(
    Object.values(BOUNDS).flatMap(({ min, max }) =>
      [min - 1, min, min + 1, max - 1, max, max + 1, 2 * max, 2 * max + 1]
        .filter((n) => n >= 0)
        .flatMap((n) => [
          "x".repeat(n),
          "😀".repeat(n),
          "\ud800".repeat(n),
          "😀x".repeat(Math.floor(n / 2)) + "\udc00".repeat(n % 2),
          // A low surrogate before a high one is two code points, not a pair: a reader that took it for
          // one would accept what zod counts as too long.
          "\udc00\ud800".repeat(Math.floor(n / 2)) + "x".repeat(n % 2),
        ]),
    ),
  ),
  "é".repeat(16),
];
/** Bodies as raw JSON text, for what an object literal cannot hold: -0, and `__proto__` as a key. */
const rawBodies = [
  '{"productList":[{"sku":"A","productType":"range","quote":-0,"quantity":1}],"wallet":"USD","reference":"r"}',
  '{"__proto__":{"wallet":"EUR"},"productList":[],"wallet":"USD","reference":"r"}',
  '{"productList":[{"__proto__":{"quantity":2},"sku":"A","productType":"range","quote":1,"quantity":1}],"wallet":"USD","reference":"r"}',
  '{"productList":[{"sku":"A","productType":"range","quote":5e-324,"quantity":1}],"wallet":"USD","reference":"r","webhookUrl":""}',
];
const otherValues: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  1,
  -1,
  1.5,
  -0,
  2 ** 53 - 1,
  2 ** 53,
  1e308,
  [],
  {},
  ["x"],
  { sku: "x" },
];
const anyValues = [...otherValues, ...boundaryStrings];

const validLine = () => ({ sku: "DEMO-US-RANGE", productType: "range", quote: 10, quantity: 1 });
const validBody = () => ({ productList: [validLine()], wallet: "USD", reference: "ref-1" });

/** A small seeded generator, so that a failure names a case that can be run again. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The value as a body arrives: through JSON (no undefined); a value JSON cannot carry is skipped. */
function asJson(value: unknown): { json: unknown } | null {
  const text = JSON.stringify(value);
  return text === undefined ? null : { json: JSON.parse(text) as unknown };
}

function expectAgreement(original: unknown, counts: { read: number; refused: number }) {
  const arrived = asJson(original);
  if (arrived === null) return;
  expectSameAsSchema(arrived.json, counts);
}

function expectSameAsSchema(value: unknown, counts: { read: number; refused: number }) {
  const read = readCreateOrder(value);
  const parsed = CreateOrderRequest.safeParse(value);
  expect(
    read !== null,
    `${read === null ? "left to" : "read without"} zod, but the schema ${parsed.success ? "accepts" : "refuses"} it: ${JSON.stringify(value)}`,
  ).toBe(parsed.success);
  if (read === null) {
    counts.refused += 1;
    return;
  }
  counts.read += 1;
  expectSameResult(read, parsed.data, value);
}

/** The same value, and its keys in the same order (toStrictEqual does not compare order). */
function expectSameResult(read: unknown, parsed: unknown, input: unknown) {
  expect(read, JSON.stringify(input)).toStrictEqual(parsed);
  expect(JSON.stringify(read), JSON.stringify(input)).toBe(JSON.stringify(parsed));
}

describe("readCreateOrder agrees with CreateOrderRequest", () => {
  it("reads every valid request without zod, with the schema's result (unknown fields dropped)", () => {
    const bodies: unknown[] = [
      validBody(),
      { ...validBody(), webhookUrl: "https://example.test/hook" },
      { ...validBody(), webhookUrl: "" },
      { ...validBody(), extra: { nested: true }, productList: [{ ...validLine(), note: "x" }] },
      { ...validBody(), productList: [] },
      { ...validBody(), productList: [validLine(), { ...validLine(), sku: "B", quote: 12.34, quantity: 25 }] },
      { ...validBody(), productList: [{ ...validLine(), quote: -5, quantity: 2 ** 53 - 1 }] },
      { ...validBody(), wallet: "usd", reference: "r".repeat(256) },
    ];
    for (const body of bodies) {
      const parsed = CreateOrderRequest.safeParse(body);
      expect(parsed.success).toBe(true);
      expectSameResult(readCreateOrder(body), parsed.data, body);
    }
  });

  it("accepts exactly what the schema accepts, field by field", () => {
    const counts = { read: 0, refused: 0 };
    for (const value of anyValues) {
      expectAgreement(value, counts);
      for (const field of ["productList", "wallet", "reference", "webhookUrl"])
        expectAgreement({ ...validBody(), [field]: value }, counts);
      for (const field of ["sku", "productType", "quote", "quantity"]) {
        expectAgreement({ ...validBody(), productList: [{ ...validLine(), [field]: value }] }, counts);
        expectAgreement({ ...validBody(), productList: [validLine(), { ...validLine(), [field]: value }] }, counts);
      }
      expectAgreement({ ...validBody(), productList: [value] }, counts);
    }
    for (const text of rawBodies) expectSameAsSchema(JSON.parse(text), counts);
    // Both sides were exercised.
    expect(counts.read).toBeGreaterThan(50);
    expect(counts.refused).toBeGreaterThan(100);
  });

  it("accepts exactly what the schema accepts, in random mixes", () => {
    const next = random(20261125);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
    const counts = { read: 0, refused: 0 };
    const maybe = (good: unknown) => (next() < 0.8 ? good : pick(anyValues));
    for (let i = 0; i < 3000; i += 1) {
      const lines = Array.from({ length: Math.floor(next() * 4) }, () => {
        const line: Record<string, unknown> = {
          sku: maybe(pick(["A", "x".repeat(64)])),
          productType: maybe(pick(["range", "fixed", "other"])),
          quote: maybe(pick([1, 0.5, 500])),
          quantity: maybe(pick([1, 5, 25])),
        };
        for (const key of Object.keys(line)) if (next() < 0.05) delete line[key];
        return next() < 0.05 ? pick(anyValues) : line;
      });
      const body: Record<string, unknown> = {
        productList: maybe(lines),
        wallet: maybe(pick(["USD", "EUR", "x".repeat(16)])),
        reference: maybe(`ref-${i}`),
      };
      if (next() < 0.5) body.webhookUrl = maybe("https://example.test/hook");
      for (const key of Object.keys(body)) if (next() < 0.05) delete body[key];
      expectAgreement(next() < 0.02 ? pick(anyValues) : body, counts);
    }
    expect(counts.read).toBeGreaterThan(300);
    expect(counts.refused).toBeGreaterThan(300);
  });
});

describe("readOrderId agrees with ConfirmOrderRequest and GetOrderQuery", () => {
  it("accepts exactly the orderIds each schema accepts, with the same value", () => {
    let read = 0;
    for (const value of anyValues) {
      if (value === undefined) continue;
      for (const input of [
        value,
        { orderId: value },
        { orderId: value, other: 1 },
        Object.assign(Object.create(null), { orderId: value }),
      ]) {
        const orderId = readOrderId(input);
        for (const schema of [ConfirmOrderRequest, GetOrderQuery]) {
          const parsed = schema.safeParse(input);
          expect(orderId !== null, JSON.stringify(input)).toBe(parsed.success);
          if (orderId !== null) expect(parsed.data?.orderId).toBe(orderId);
        }
        if (orderId !== null) read += 1;
      }
    }
    expect(read).toBeGreaterThan(10);
    expect(readOrderId({ orderId: "ord_1" })).toBe("ord_1");
    expect(readOrderId({ orderId: ["ord_1", "ord_2"] })).toBeNull();
  });
});
