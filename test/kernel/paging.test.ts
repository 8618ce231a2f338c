import { describe, expect, it } from "vitest";
import { pageOf, rowsToFetch } from "../../src/kernel/paging";

describe("paging: limit + 1 rows, then the cursor of the last row shown", () => {
  it("asks the store for one row more than the page", () => {
    expect(rowsToFetch(100)).toBe(101);
  });

  it("the extra row means a next page, whose cursor is that of the last row shown", () => {
    expect(pageOf([{ id: 1 }, { id: 2 }, { id: 3 }], 2, (row) => row.id)).toEqual({
      items: [{ id: 1 }, { id: 2 }],
      next: 2,
    });
  });

  it("no extra row: the last page, with no cursor", () => {
    expect(pageOf([{ id: 1 }, { id: 2 }], 2, (row) => row.id)).toEqual({ items: [{ id: 1 }, { id: 2 }], next: null });
    expect(pageOf([], 5, (row: { id: number }) => row.id)).toEqual({ items: [], next: null });
  });
});
