/**
 * Snapshot cache: least-recently-used, bounded by an approximate byte budget. Only syncs in a final state are
 * cached, keyed by (id, status, completed_at), so a sync that is retried, cleaned or purged is read afresh: every
 * request first reads the requested syncs' rows, in whatever process it runs.
 */
import type { SplitBody } from './split-body.ts';
import type { SyncSnapshot } from './snapshot-types.ts';

export const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled', 'cleaned']);

export class SnapshotCache {
  private readonly entries = new Map<string, SyncSnapshot>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  static key(sync: { id: string; status: string; completed_at: Date | null }): string | undefined {
    if (!FINAL_STATUSES.has(sync.status)) return undefined;
    return `${sync.id}|${sync.status}|${sync.completed_at?.toISOString() ?? ''}`;
  }

  get(key: string): SyncSnapshot | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, snapshot: SyncSnapshot): void {
    if (snapshot.bytes > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.bytes;
      this.entries.delete(key);
    }
    this.entries.set(key, snapshot);
    this.bytes += snapshot.bytes;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.bytes;
    }
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
 * entry's size grows when a compressed form is first made; it is re-measured whenever an entry is added.
 */
export class MergedCache {
  private readonly entries = new Map<string, CachedMerge>();

  constructor(private readonly maxBytes: number) {}

  get(key: string): CachedMerge | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, merged: CachedMerge): void {
    if (merged.body.bytes > this.maxBytes || this.entries.has(key)) return;
    this.entries.set(key, merged);
    let bytes = 0;
    for (const v of this.entries.values()) bytes += v.body.bytes;
    for (const [k, v] of this.entries) {
      if (bytes <= this.maxBytes) break;
      this.entries.delete(k);
      bytes -= v.body.bytes;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
