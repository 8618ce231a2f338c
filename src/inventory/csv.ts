/**
 * A small RFC 4180 reader: comma-separated fields, optionally in double quotes (with "" for a quote inside),
 * rows ended by LF or CRLF. Empty rows are skipped. Returns the rows, or the 1-based line of the first error.
 */
export function parseCsv(text: string): { ok: true; rows: string[][] } | { ok: false; line: number; message: string } {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let fieldStarted = false;
  let line = 1;
  const endRow = () => {
    row.push(field);
    if (!(row.length === 1 && row[0] === "" && !fieldStarted)) rows.push(row);
    row = [];
    field = "";
    fieldStarted = false;
  };
  const body = text.startsWith("\ufeff") ? text.slice(1) : text;
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index]!;
    if (quoted) {
      if (char === '"') {
        if (body[index + 1] === '"') {
          field += '"';
          index += 1;
        } else {
          quoted = false;
          const next = body[index + 1];
          if (next !== undefined && next !== "," && next !== "\n" && next !== "\r") {
            return { ok: false, line, message: "a closing quote must end the field" };
          }
        }
      } else {
        if (char === "\n") line += 1;
        field += char;
      }
      continue;
    }
    if (char === '"') {
      if (field !== "") return { ok: false, line, message: "a quote may only open a field" };
      quoted = true;
      fieldStarted = true;
    } else if (char === ",") {
      row.push(field);
      field = "";
      fieldStarted = true;
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && body[index + 1] === "\n") index += 1;
      endRow();
      line += 1;
    } else {
      field += char;
      fieldStarted = true;
    }
  }
  if (quoted) return { ok: false, line, message: "a quoted field is not closed" };
  if (field !== "" || row.length > 0 || fieldStarted) endRow();
  return { ok: true, rows };
}
