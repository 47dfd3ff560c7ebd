/**
 * The event hub: one listener for all clients, fan-out in process.
 *
 * Ordering and late commits. Event ids come from an identity column: a transaction that took id N may commit after
 * id N+1 was committed and delivered. The hub keeps `lastId`, the id up to which every row was delivered or given
 * up on. On each notification (and after each reconnect) it reads all rows with id > lastId in order and delivers
 * them while they are contiguous. At a hole (lastId+1 missing but later rows visible) it waits up to `gapWaitMs`
 * for the hole to fill (a late commit) before moving on; the skipped ids are watched for `lateWatchMs` more, and a
 * row that shows up there is still delivered, as a "late" frame without an `id:` line (so no client's Last-Event-ID
 * moves backwards and a resume neither repeats nor skips the rows after it). Holes from rolled-back transactions
 * cost at most `gapWaitMs` of delay.
 */
import type pg from 'pg';
import type { Logger } from '../../lib/log.ts';
import { eventFrame, HEARTBEAT_FRAME } from './frames.ts';
import { createListener, type EventListener } from './listener.ts';
import { headId, rowsAfter, rowsById, type EventRecord } from './store.ts';

const PAGE = 1000;
const MAX_WATCHED = 10_000;

export interface HubClient {
  /** Delivers one frame in order (ids increasing). */
  deliver(record: EventRecord, frame: string): void;
  /** Delivers a late row (id below ids already delivered) that this client may not have seen. */
  deliverLate(record: EventRecord, frame: string): void;
  heartbeat(frame: string): void;
}

export interface HubOptions {
  databaseUrl: string;
  pool: pg.Pool;
  log: Logger;
  heartbeatMs: number;
  gapWaitMs: number;
  lateWatchMs?: number;
}

export class EventHub {
  readonly #opts: HubOptions & { lateWatchMs: number };
  readonly #clients = new Set<HubClient>();
  readonly #listener: EventListener;
  /** Every row with id <= lastId was delivered or given up on; undefined until the first connection. */
  #lastId: number | undefined;
  /** When the hole at lastId+1 was first seen. */
  #holeSince: number | undefined;
  /** Skipped ids → when to stop watching them. */
  readonly #watched = new Map<number, number>();
  #pumping: Promise<void> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #closed = false;
  /** When the oldest notification not yet answered by a fan-out arrived (for the sse_fanout debug log). */
  #notifiedAt: number | undefined;

  constructor(options: HubOptions) {
    this.#opts = { lateWatchMs: 300_000, ...options };
    this.#listener = createListener(
      options.databaseUrl,
      {
        onConnected: (client, reconnect) => this.#onConnected(client, reconnect),
        onNotify: () => {
          this.#notifiedAt ??= performance.now();
          this.pump();
        },
      },
      options.log,
    );
  }

  start(): void {
    this.#listener.start();
    this.#heartbeat = setInterval(() => {
      for (const c of this.#clients) c.heartbeat(HEARTBEAT_FRAME);
    }, this.#opts.heartbeatMs);
    this.#heartbeat.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    if (this.#timer) clearTimeout(this.#timer);
    await this.#listener.stop();
    await this.#pumping;
  }

  get ready(): boolean {
    return this.#lastId !== undefined;
  }

  /** The id the hub has delivered up to (undefined before the first connection). */
  get lastId(): number | undefined {
    return this.#lastId;
  }

  get listenerPid(): number | undefined {
    return this.#listener.pid;
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  /** Whether `id` is a skipped hole still watched for a late commit. */
  isWatched(id: number): boolean {
    return this.#watched.has(id);
  }

  add(client: HubClient): void {
    this.#clients.add(client);
  }

  remove(client: HubClient): void {
    this.#clients.delete(client);
  }

  async #onConnected(client: pg.Client, reconnect: boolean): Promise<void> {
    if (this.#lastId === undefined) {
      this.#lastId = await headId(client);
      this.#opts.log.info('sse_hub_ready', { last_id: this.#lastId });
    }
    if (reconnect) this.pump();
  }

  /** Reads and delivers what is new; coalesces concurrent calls. */
  pump(): void {
    if (this.#closed || this.#lastId === undefined) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = this.#drain()
      .catch((err: unknown) => {
        this.#opts.log.warning('sse_read_failed', { error: err });
        this.#later(500);
      })
      .finally(() => {
        this.#pumping = undefined;
        if (this.#again) {
          this.#again = false;
          this.pump();
        }
      });
  }

  #later(ms: number): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.pump();
    }, ms);
    this.#timer.unref();
  }

  async #drain(): Promise<void> {
    const notifiedAt = this.#notifiedAt;
    this.#notifiedAt = undefined;
    let delivered = 0;
    try {
      await this.#drainRows((n) => (delivered += n));
    } finally {
      if (delivered > 0 && notifiedAt !== undefined) {
        this.#opts.log.debug('sse_fanout', {
          rows: delivered,
          clients: this.#clients.size,
          ms: Math.round((performance.now() - notifiedAt) * 100) / 100,
        });
      }
    }
  }

  async #drainRows(count: (n: number) => void): Promise<void> {
    if (this.#watched.size > 0) await this.#deliverLate();
    for (;;) {
      const from = this.#lastId!;
      const rows = await rowsAfter(this.#opts.pool, from, PAGE);
      for (const row of rows) {
        const expected = this.#lastId! + 1;
        if (row.id > expected) {
          const now = Date.now();
          if (this.#holeSince === undefined)
            this.#opts.log.debug('sse_gap_seen', { last_id: this.#lastId, next_id: row.id });
          this.#holeSince ??= now;
          const waited = now - this.#holeSince;
          if (waited < this.#opts.gapWaitMs) {
            this.#later(this.#opts.gapWaitMs - waited);
            return;
          }
          this.#skip(expected, row.id - 1, now);
        }
        this.#lastId = row.id;
        this.#holeSince = undefined;
        const frame = eventFrame(row);
        for (const c of this.#clients) c.deliver(row, frame);
        count(1);
      }
      if (rows.length < PAGE) return;
    }
  }

  #skip(from: number, to: number, now: number): void {
    this.#opts.log.warning('sse_gap_skipped', { from_id: from, to_id: to, waited_ms: now - (this.#holeSince ?? now) });
    for (let id = from; id <= to && this.#watched.size < MAX_WATCHED; id++) {
      this.#watched.set(id, now + this.#opts.lateWatchMs);
    }
  }

  async #deliverLate(): Promise<void> {
    const now = Date.now();
    for (const [id, until] of this.#watched) if (until <= now) this.#watched.delete(id);
    if (this.#watched.size === 0) return;
    const rows = await rowsById(this.#opts.pool, [...this.#watched.keys()]);
    for (const row of rows) {
      this.#watched.delete(row.id);
      this.#opts.log.warning('sse_late_event', { id: row.id, type: row.type });
      const frame = eventFrame(row, { late: true });
      for (const c of this.#clients) c.deliverLate(row, frame);
    }
  }
}
