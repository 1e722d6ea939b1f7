// CSV text (RFC 4180) of a table's header and rows, with cells a spreadsheet would run as formulas made inert.

/** A cell starting with one of these is a formula to Excel, LibreOffice and Sheets (CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A plain number (a negative one starts with '-' too): left as it is, so the column stays numeric. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

function csvCell(value: string): string {
  // Only a whole number is exempt: '-1-2' or '-1+cmd|…' start like one but a spreadsheet evaluates them.
  const inert = FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(inert) ? `"${inert.replaceAll('"', '""')}"` : inert;
}

/** One line per row, CRLF-separated as RFC 4180 writes it. */
export function toCsv(rows: readonly (readonly string[])[]): string {
  return rows.map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** The text a table shows, or a cell's `data-csv` when it carries the raw value behind a formatted one. */
export function tableRows(table: HTMLTableElement): string[][] {
  return [...table.rows].map((row) =>
    [...row.cells].map((cell) => (cell.dataset.csv ?? cell.textContent ?? '').replace(/\s+/g, ' ').trim()),
  );
}
