import { describe, expect, it } from "vitest";
import { csvCell, csvLine } from "../../src/kernel/csv-export";

describe("csvCell", () => {
  it("keeps a text cell text when a spreadsheet would run it as a formula", () => {
    for (const start of ["=", "+", "-", "@", "\t", "\r"]) {
      const cell = csvCell(`${start}1+1`);
      expect(cell.replace(/^"/, "").startsWith(`'${start}`), JSON.stringify(start)).toBe(true);
    }
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell("a,b")).toBe(`"a,b"`);
    expect(csvCell("line\nbreak")).toBe(`"line\nbreak"`);
    expect(csvCell(" padded ")).toBe(`" padded "`);
  });

  it("trims the spaces a spreadsheet skips before a formula, then neutralises it", () => {
    expect(csvCell("  =1+1")).toBe("'=1+1");
    expect(csvCell(" \u00a0@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell(' =HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    // Text after the spaces keeps them (only quoted, as before).
    expect(csvCell("  a=1")).toBe(`"  a=1"`);
  });

  it("writes numbers as numbers (a negative amount is not a formula) and nothing for null", () => {
    expect(csvCell(-12.5)).toBe("-12.5");
    expect(csvCell(3)).toBe("3");
    expect(csvCell(null)).toBe("");
    expect(csvCell(Number.NaN)).toBe("");
    expect(csvLine(["a", 1, null, "=x"])).toBe("a,1,,'=x\r\n");
  });
});
