/** Reading the CSV the service answers (exports and statements), as a spreadsheet would. */
import { expect } from "vitest";

/** A CSV text (RFC 4180, CRLF) as rows of cells. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at]!;
    if (quoted) {
      if (char === '"' && text[at + 1] === '"') {
        cell += '"';
        at += 1;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      row.push(cell);
      cell = "";
    } else if (char === "\r" && text[at + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      at += 1;
    } else cell += char;
  }
  expect(cell === "" && row.length === 0, "the CSV ends with CRLF").toBe(true);
  return rows;
}
