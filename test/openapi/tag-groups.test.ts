/**
 * The document groups its tags by reader (x-tagGroups), so the API reference at /docs shows the client's
 * API, the sandbox's helpers and the operator's API each under one heading instead of interleaved.
 */
import { describe, expect, it } from "vitest";
import { call } from "../helpers";

describe("the document's tag groups", () => {
  it("put every tag in exactly one group: the client's, the sandbox's or the operator's, in that order", async () => {
    const { body } = await call("GET", "/openapi.json", { key: null });
    const groups = body["x-tagGroups"] as { name: string; tags: string[] }[];
    expect(groups.map(({ name }) => name)).toEqual(["Client API", "Sandbox", "Operator API"]);
    const grouped = groups.flatMap(({ tags }) => tags);
    expect(grouped.sort()).toEqual((body.tags as { name: string }[]).map(({ name }) => name).sort());
    expect(new Set(grouped).size).toBe(grouped.length);
    const operator = groups.find(({ name }) => name === "Operator API")!.tags;
    for (const tag of grouped) expect(operator.includes(tag), tag).toBe(tag.startsWith("Admin: "));
    // The tags are listed group by group.
    expect((body.tags as { name: string }[]).map(({ name }) => name)).toEqual(groups.flatMap(({ tags }) => tags));
  });
});
