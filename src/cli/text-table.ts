/** A plain-text table for the CLI: a header row, then one row per item, columns padded to fit. */

export interface TableColumn<T> {
  readonly header: string;
  readonly value: (row: T) => string;
  /** Numbers read best right-aligned. */
  readonly alignRight?: boolean;
}

export function formatTable<T>(columns: readonly TableColumn<T>[], rows: readonly T[]): string {
  const cells = [columns.map((c) => c.header), ...rows.map((row) => columns.map((c) => c.value(row)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? '').length)));
  const lines = cells.map((line) =>
    line
      .map((cell, i) => (columns[i]?.alignRight === true ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}
