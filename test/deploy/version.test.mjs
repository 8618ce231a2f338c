/**
 * One version number: `version` of package.json, `info.version` of the checked-in OpenAPI document (which
 * test/openapi/openapi.test.ts holds equal to what GET /openapi.json serves), and the newest section of
 * CHANGELOG.md. A release changes all three together.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

describe("the version", () => {
  const pkg = JSON.parse(read("package.json")).version;
  const document = JSON.parse(read("schema/openapi.json")).info.version;
  const changelog = [...read("CHANGELOG.md").matchAll(/^## (\d+\.\d+\.\d+)\b/gm)].map((match) => match[1]);

  it("is the same in package.json, the OpenAPI document and the newest CHANGELOG.md section", () => {
    expect(pkg).toMatch(/^\d+\.\d+\.\d+$/);
    expect(document).toBe(pkg);
    expect(changelog[0]).toBe(pkg);
  });

  it("only grows down the CHANGELOG.md sections", () => {
    const ordered = [...changelog].sort((a, b) => {
      const [x, y] = [a, b].map((v) => v.split(".").map(Number));
      return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
    });
    expect(changelog).toEqual(ordered);
    expect(new Set(changelog).size).toBe(changelog.length);
  });
});
