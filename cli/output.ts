/** Output: tables for people (columns padded, long cells cut), JSON for scripts (--json), notes on stderr. */

export type Row = Record<string, unknown>;

export interface Column {
  key: string;
  header: string;
  /** Longest cell; longer values are cut with an ellipsis. */
  max?: number;
}

export function cell(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

export function table(rows: Row[], columns: Column[]): string {
  const cells = rows.map((r) =>
    columns.map((c) => {
      const s = cell(r[c.key]).replace(/\s+/g, ' ');
      return c.max !== undefined && s.length > c.max ? s.slice(0, c.max - 1) + '…' : s;
    }),
  );
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => (i === vals.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

/** A note for the person (stderr, so stdout stays clean for pipes). */
export function note(text: string): void {
  process.stderr.write(text + '\n');
}
