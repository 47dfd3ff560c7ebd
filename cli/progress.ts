/**
 * The live view of a followed sync on stderr. On a terminal: one line redrawn in place,
 * `running  parsing    [##########----------]  50%  120/240`. Elsewhere (a pipe, a CI log): one line per status
 * or phase change, so logs stay short.
 */
export interface SyncView {
  status: string;
  phase?: string | undefined;
  done: number;
  total: number;
}

const WIDTH = 24;

export function bar(v: SyncView): string {
  const frac = v.total > 0 ? Math.min(1, v.done / v.total) : 0;
  const filled = Math.round(frac * WIDTH);
  const pct = v.total > 0 ? `${String(Math.round(frac * 100)).padStart(3)}%` : '   -';
  return `${v.status.padEnd(9)} ${(v.phase ?? '').padEnd(20)} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${pct}  ${v.done}/${v.total}`;
}

export class ProgressView {
  private view: SyncView = { status: 'pending', done: 0, total: 0 };
  private lastKey = '';
  private drawn = false;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr) {}

  private get live(): boolean {
    return this.out.isTTY === true;
  }

  update(change: Partial<SyncView>): void {
    this.view = { ...this.view, ...change };
    if (this.live) {
      this.out.write(`\r\x1b[2K${bar(this.view)}`);
      this.drawn = true;
      return;
    }
    const key = `${this.view.status}|${this.view.phase ?? ''}`;
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.out.write(`${bar(this.view)}\n`);
    }
  }

  /** A message on its own line (the bar is redrawn after it on a terminal). */
  message(text: string): void {
    if (this.live && this.drawn) this.out.write('\r\x1b[2K');
    this.out.write(text + '\n');
    if (this.live && this.drawn) this.out.write(bar(this.view));
  }

  end(): void {
    if (this.live && this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}
