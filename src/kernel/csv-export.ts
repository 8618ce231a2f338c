/**
 * CSV for people's spreadsheets (RFC 4180), with every text cell kept text: a spreadsheet runs a cell that
 * starts with =, +, -, @, a tab or a carriage return as a formula (CSV injection), so such a cell gets a
 * leading apostrophe, which spreadsheets show as text. Spreadsheets also skip leading spaces before such a
 * character, so a cell that does so is trimmed, then neutralised. Numbers are written as they are. Imports
 * nothing.
 */

/** Characters that make a spreadsheet read a cell as a formula when they start it. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: a number as it is; text neutralised against formulas, then quoted when it must be. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  const start = value.trimStart();
  const text = FORMULA_START.test(value) ? `'${value}` : FORMULA_START.test(start) ? `'${start}` : value;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One line of cells, ended by CRLF as RFC 4180 asks. */
export function csvLine(cells: readonly (string | number | null | undefined)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
