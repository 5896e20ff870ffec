/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled. A cell a
 * spreadsheet would read as a formula (starting with = + - @, or a tab or carriage return before one) gets
 * a leading apostrophe, so opening the file never runs anything a caller put in a path.
 */
export function csvCell(value: string | number | null): string {
  let text = value === null ? '' : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvLine = (cells: (string | number | null)[]) => `${cells.map(csvCell).join(',')}\r\n`;

/** A download reads a list's pages of 100 until this many rows, so one click cannot read a year unbounded. */
export const csvMaxRows = 10_000;

/**
 * A list as CSV text: the header, then the rows of its pages read one after the other (at most `csvMaxRows`),
 * each page asked for with the previous page's cursor.
 */
export async function csvOfPages<Item>(
  columns: readonly string[],
  readPage: (cursor: string | undefined, limit: number) => Promise<{ data: Item[]; next_cursor: string | null }>,
  cells: (item: Item) => (string | number | null)[],
): Promise<string> {
  let text = csvLine([...columns]);
  let cursor: string | undefined;
  for (let rows = 0; rows < csvMaxRows; ) {
    const page = await readPage(cursor, Math.min(100, csvMaxRows - rows));
    for (const item of page.data) text += csvLine(cells(item));
    rows += page.data.length;
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return text;
}
