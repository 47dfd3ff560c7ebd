/** The shapes of a sync's snapshot (snapshot.ts) and of the sync it is keyed by, apart from the loader and its cache. */

export interface SyncSnapshot {
  syncId: string;
  sourceId: string;
  /** Parallel arrays, one entry per file record of the sync. */
  paths: string[];
  names: string[];
  types: string[];
  domains: string[];
  hashes: string[];
  /** depends_on edges: file indices and weights. */
  edgeFrom: Int32Array;
  edgeTo: Int32Array;
  edgeWeight: Float64Array;
  /** Rough heap footprint, for the cache's byte budget. */
  bytes: number;
}

/** A sync as the snapshot cache keys it. */
export interface SnapshotSync {
  id: string;
  source_id: string;
  status: string;
  completed_at: Date | null;
}
