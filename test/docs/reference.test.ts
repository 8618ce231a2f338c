/// <reference types="vite/client" />
/**
 * The reference in prose (README.md, CONTRIBUTING.md, ARCHITECTURE.md and docs/*.md) against the code:
 * docs/errors.md lists every error code with the status, message and details fields the service answers
 * with, and puts each code in exactly one row of its retry table; every relative link of the reference
 * points at a file of the repository.
 * The Markdown is read through Vite (`?raw`, `import.meta.glob`): the tests run inside workerd, which has
 * no file system.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { ERROR_DETAILS } from "../../src/kernel/failure-details";
import { ERRORS, type ErrorCode } from "../../src/http/errors";

const REFERENCE: Record<string, string> = import.meta.glob(
  ["/README.md", "/CONTRIBUTING.md", "/ARCHITECTURE.md", "/docs/*.md", "/examples/**/*.md"],
  { query: "?raw", import: "default", eager: true },
);
/** Every file of the repository outside node_modules and dot-folders, as `/path/from/root`. */
const FILES = new Set(Object.keys(import.meta.glob(["/**", "!/node_modules/**"])));
const CODES = Object.keys(ERRORS) as ErrorCode[];

/** The rows of the first Markdown table after `heading`, as arrays of trimmed cells (header and rule dropped). */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`\n${heading}\n`);
  expect(start, `docs/errors.md has a section ${heading}`).toBeGreaterThan(-1);
  const lines = markdown.slice(start).split("\n");
  const first = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The fields every answer's details carry: the required keys of the code's details schema. */
function requiredFields(code: ErrorCode): string[] {
  const schema = ERROR_DETAILS[code].schema;
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, field]) => !field.safeParse(undefined).success)
    .map(([key]) => key);
}

describe("docs/errors.md", () => {
  const errors = REFERENCE["/docs/errors.md"]!;

  it("lists every code once, with the status and message the service answers with", () => {
    const rows = tableAfter(errors, "## Every code");
    expect(rows.map((row) => row[1]).sort()).toEqual([...CODES].sort());
    for (const [status, code, message] of rows) {
      const spec = ERRORS[code as ErrorCode];
      expect(status, code).toBe(String(spec.status));
      // The message as sent; `<…>` stands for what the service appends (`No wallet in currency <wallet>`).
      expect(
        message === spec.message ||
          new RegExp(`^${spec.message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:? <[a-z]+>$`).test(message!),
        `${code}: ${message}`,
      ).toBe(true);
    }
  });

  it("gives each code's details: none where it has none, and every field each answer carries", () => {
    for (const [, code, , details] of tableAfter(errors, "## Every code")) {
      const doc = ERROR_DETAILS[code as ErrorCode];
      if (doc.schema === undefined) {
        expect(details, code).toMatch(/^none\b/);
        expect(details, code).not.toContain("{");
        continue;
      }
      expect(details, code).toContain("{");
      for (const field of requiredFields(code as ErrorCode))
        expect(details, `${code} names ${field}`).toMatch(new RegExp(`\\b${field}\\b`));
    }
  });

  it("puts every code in exactly one row of the retry table", () => {
    const named = tableAfter(errors, "## When to retry").flatMap((row) =>
      [...row[1]!.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]),
    );
    expect([...named].sort()).toEqual([...CODES].sort());
  });
});

describe("the reference's relative links", () => {
  it("point at files of the repository", () => {
    expect(Object.keys(REFERENCE)).toEqual(
      expect.arrayContaining(["/README.md", "/CONTRIBUTING.md", "/ARCHITECTURE.md"]),
    );
    const broken: string[] = [];
    for (const [file, markdown] of Object.entries(REFERENCE)) {
      const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
      for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!) || target!.startsWith("#")) continue;
        const path = new URL(decodeURI(target!.split("#")[0]!), `file://${file}`).pathname.replace(/\/$/, "");
        if (!FILES.has(path) && ![...FILES].some((known) => known.startsWith(`${path}/`)))
          broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("name only files that exist when they give a repository path in backticks", () => {
    const missing: string[] = [];
    for (const [file, markdown] of Object.entries(REFERENCE)) {
      const prose = markdown.replace(/```[\s\S]*?```/g, "");
      // `src/orders/order-object.ts`, `bench/results/latest.md`: a path from the root with a file ending.
      for (const [, path] of prose.matchAll(
        /`((?:src|test|scripts|bench|schema|docs|examples)\/[\w./-]+\.[a-z]{2,4})`/g,
      )) {
        if (!FILES.has(`/${path}`)) missing.push(`${file}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
