// Tables as text: aligned columns for the terminal, pipes for Markdown.

export interface Table {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Columns to right-align (numbers). */
  readonly numericColumns?: ReadonlySet<number>;
}

export function formatTextTable(table: Table): string {
  const widths = table.header.map((h, c) => Math.max(h.length, ...table.rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => (table.numericColumns?.has(c) ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(table.header), widths.map((w) => '-'.repeat(w)).join('  '), ...table.rows.map(line)].join('\n');
}

export function formatMarkdownTable(table: Table): string {
  const escape = (cell: string): string => cell.replace(/\|/g, '\\|');
  const align = table.header.map((_, c) => (table.numericColumns?.has(c) ? '---:' : '---'));
  return [table.header, align, ...table.rows].map((cells) => `| ${cells.map(escape).join(' | ')} |`).join('\n');
}
