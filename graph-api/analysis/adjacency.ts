/**
 * A sync snapshot's depends_on edges as compressed adjacency lists (both directions) and its paths as a map, built
 * once per snapshot object and kept as long as the snapshot is (a WeakMap keyed by it): cached snapshots of final
 * syncs are walked again and again without rebuilding anything. Building costs O(files + edges), a few
 * milliseconds for the Go standard library; a walk then touches only the nodes it reaches.
 */
import type { SyncSnapshot } from '../graph/snapshot.ts';

/** Compressed sparse rows: the neighbours of node i are `targets[offsets[i] .. offsets[i + 1])`. */
export interface Csr {
  offsets: Int32Array;
  targets: Int32Array;
}

export interface SnapshotIndex {
  byPath: Map<string, number>;
  /** i → the files i depends on. */
  out: Csr;
  /** i → the files that depend on i. */
  in: Csr;
}

const built = new WeakMap<SyncSnapshot, SnapshotIndex>();

function csr(n: number, from: Int32Array, to: Int32Array): Csr {
  const offsets = new Int32Array(n + 1);
  for (const f of from) offsets[f + 1]!++;
  for (let i = 0; i < n; i++) offsets[i + 1]! += offsets[i]!;
  const fill = offsets.slice(0, n);
  const targets = new Int32Array(from.length);
  for (let e = 0; e < from.length; e++) targets[fill[from[e]!]!++] = to[e]!;
  return { offsets, targets };
}

export function indexOf(snap: SyncSnapshot): SnapshotIndex {
  let idx = built.get(snap);
  if (!idx) {
    const n = snap.paths.length;
    const byPath = new Map<string, number>();
    snap.paths.forEach((p, i) => byPath.set(p, i));
    idx = { byPath, out: csr(n, snap.edgeFrom, snap.edgeTo), in: csr(n, snap.edgeTo, snap.edgeFrom) };
    built.set(snap, idx);
  }
  return idx;
}
