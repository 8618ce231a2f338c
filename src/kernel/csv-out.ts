/**
 * CSV as a spreadsheet reads it, safely: RFC 4180 quoting, and a text cell that a spreadsheet would run as
 * a formula neutralised. Imports nothing.
 */

/** What starts a formula in Excel, LibreOffice or Google Sheets (OWASP's list): `=`, `+`, `-`, `@`, tab, CR. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text cell someone wrote (a reference, a reason, a name): one that a spreadsheet would run as a formula
 * is prefixed with `'`, which the spreadsheet shows as text. Numbers the service wrote go through `cell`.
 */
export function textCell(value: string): string {
  return cell(FORMULA_START.test(value) ? `'${value}` : value);
}

/** A cell quoted when it must be: a comma, a quote or a line break in it. */
export function cell(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One line of already-formatted cells, with CSV's CRLF. */
export function csvLine(cells: readonly string[]): string {
  return `${cells.join(",")}\r\n`;
}
