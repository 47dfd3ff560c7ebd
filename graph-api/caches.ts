/**
 * Snapshot cache: least-recently-used, bounded by an approximate byte budget (lru-cache's maxSize). Only syncs in a final state are
 * cached, keyed by (id, status, completed_at), so a sync that is retried, cleaned or purged is read afresh: every
 * request first reads the requested syncs' rows, in whatever process it runs.
 */
import { LRUCache } from 'lru-cache';
import type { SplitBody } from './graph/split-body.ts';
import type { SyncSnapshot } from './graph/snapshot-types.ts';

export const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled', 'cleaned']);

export class SnapshotCache {
  private readonly entries: LRUCache<string, SyncSnapshot>;

  constructor(maxBytes: number) {
    this.entries = new LRUCache({ maxSize: maxBytes, sizeCalculation: (s) => entrySize(s.bytes) });
  }

  static key(sync: { id: string; status: string; completed_at: Date | null }): string | undefined {
    if (!FINAL_STATUSES.has(sync.status)) return undefined;
    return `${sync.id}|${sync.status}|${sync.completed_at?.toISOString() ?? ''}`;
  }

  get(key: string): SyncSnapshot | undefined {
    return this.entries.get(key);
  }

  /** Stores the snapshot as the most recently used; one larger than the whole budget is not kept. */
  set(key: string, snapshot: SyncSnapshot): void {
    this.entries.set(key, snapshot);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** A cached merged graph: its body (bytes and compressed forms) and counts. */
export interface CachedMerge {
  body: SplitBody;
  nodeCount: number;
  edgeCount: number;
}

/**
 * Merged results of sets of final syncs (keyed by their snapshot keys), LRU within a byte budget: a set of final
 * syncs always merges to the same graph, so a repeated request only re-reads the sync rows and sends the bytes. An
 * entry's size grows when a compressed form is first made (a response after it was stored); it is measured again
 * when it is next read.
 */
export class MergedCache {
  private readonly entries: LRUCache<string, CachedMerge>;

  constructor(maxBytes: number) {
    this.entries = new LRUCache({ maxSize: maxBytes, sizeCalculation: (m) => entrySize(m.body.bytes) });
  }

  /** A hit whose compressed forms were made since it was measured is measured again (and stays most recent). */
  get(key: string): CachedMerge | undefined {
    const hit = this.entries.get(key);
    if (hit && this.entries.info(key)?.size !== entrySize(hit.body.bytes)) this.entries.set(key, hit);
    return hit;
  }

  /** A set of final syncs always merges to the same graph: an entry already there is kept as it is. */
  set(key: string, merged: CachedMerge): void {
    if (!this.entries.has(key)) this.entries.set(key, merged);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** lru-cache counts sizes in positive integers. */
export function entrySize(bytes: number): number {
  return Math.max(1, Math.ceil(bytes));
}
