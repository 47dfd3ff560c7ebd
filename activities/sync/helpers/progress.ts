/**
 * Progress of a running sync: progress_done / progress_total / progress_meta.phase on the run, and a sync_progress
 * event in the same transaction. Throttled: at most one write per interval (a few per second); flush() writes the
 * latest state at phase boundaries. Only a run that is still `running` is updated.
 */
import { withTransaction, type Pool } from '../../../lib/db.ts';
import { writeEvent } from '../../../lib/events.ts';
import type { Logger } from '../../../lib/log.ts';
import { writeProgress, type Phase } from '../../../lib/sync-runs/index.ts';

interface State {
  phase: Phase;
  done: number;
  total: number;
}

export class ProgressReporter {
  private latest: State | null = null;
  private written: State | null = null;
  private lastWrite = 0;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly syncId: string,
    private readonly sourceId: string,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  /** Records the state; writes it now if the interval has passed and no write is in flight. */
  report(phase: Phase, done: number, total: number): void {
    this.latest = { phase, done, total };
    if (this.inFlight || Date.now() - this.lastWrite < this.intervalMs) return;
    this.inFlight = this.write().finally(() => (this.inFlight = null));
  }

  /** Waits for a write in flight, then writes the latest state if it was not written yet. */
  async flush(): Promise<void> {
    if (this.inFlight) await this.inFlight;
    if (this.latest && !same(this.latest, this.written)) await this.write();
  }

  /** Starts a phase: reports 0/total and writes it at once. */
  async phase(phase: Phase, total: number): Promise<void> {
    if (this.inFlight) await this.inFlight;
    this.latest = { phase, done: 0, total };
    await this.write();
  }

  private async write(): Promise<void> {
    const state = this.latest;
    if (!state) return;
    this.lastWrite = Date.now();
    try {
      await withTransaction(this.pool, async (tx) => {
        if (!(await writeProgress(tx, this.syncId, state))) return;
        await writeEvent(tx, {
          type: 'sync_progress',
          syncId: this.syncId,
          sourceId: this.sourceId,
          payload: {
            sync_id: this.syncId,
            source_id: this.sourceId,
            phase: state.phase,
            progress_done: state.done,
            progress_total: state.total,
          },
        });
      });
      this.written = state;
    } catch (err) {
      // Progress is advisory: a failed write must not fail the sync.
      this.log.warning('sync_progress_write_failed', { sync_id: this.syncId, error: err });
    }
  }
}

function same(a: State, b: State | null): boolean {
  return b !== null && a.phase === b.phase && a.done === b.done && a.total === b.total;
}
