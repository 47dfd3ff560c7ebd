/**
 * Difference between two snapshots of one source: files added, removed and changed (content_hash differs), and
 * depends_on edges added and removed (by the paths of their ends). Pure computation on the snapshots (usually
 * cached): the edge sets are compared as integers (target index × file count + source index in the newer sync).
 */
import type { SyncSnapshot } from '../graph/snapshot.ts';
import { indexOf } from './adjacency.ts';

export interface SnapshotDiff {
  added: number[];
  removed: number[];
  /** Indices into `to`, with the index of the same path in `from`. */
  changed: Array<{ to: number; from: number }>;
  unchanged: number;
  /** Edges as pairs of indices into `to` (added) or `from` (removed). */
  edgesAdded: Array<[number, number]>;
  edgesRemoved: Array<[number, number]>;
}

export function diffSnapshots(from: SyncSnapshot, to: SyncSnapshot): SnapshotDiff {
  const toIdx = indexOf(to).byPath;
  const fromIdx = indexOf(from).byPath;
  const added: number[] = [];
  const changed: SnapshotDiff['changed'] = [];
  let unchanged = 0;
  to.paths.forEach((p, i) => {
    const j = fromIdx.get(p);
    if (j === undefined) added.push(i);
    else if (from.hashes[j] !== to.hashes[i]) changed.push({ to: i, from: j });
    else unchanged++;
  });
  const removed: number[] = [];
  // fromToTo[j]: the index in `to` of `from`'s file j, or -1.
  const fromToTo = new Int32Array(from.paths.length);
  from.paths.forEach((p, j) => {
    const i = toIdx.get(p);
    fromToTo[j] = i ?? -1;
    if (i === undefined) removed.push(j);
  });

  const n = to.paths.length;
  const toEdges = new Set<number>();
  for (let e = 0; e < to.edgeFrom.length; e++) toEdges.add(to.edgeFrom[e]! * n + to.edgeTo[e]!);
  const fromEdges = new Set<number>();
  const seenFrom = new Set<number>();
  const m = from.paths.length;
  const edgesRemoved: Array<[number, number]> = [];
  for (let e = 0; e < from.edgeFrom.length; e++) {
    const fa = from.edgeFrom[e]!;
    const fb = from.edgeTo[e]!;
    if (seenFrom.has(fa * m + fb)) continue;
    seenFrom.add(fa * m + fb);
    const a = fromToTo[fa]!;
    const b = fromToTo[fb]!;
    if (a >= 0 && b >= 0) {
      fromEdges.add(a * n + b);
      if (toEdges.has(a * n + b)) continue;
    }
    edgesRemoved.push([fa, fb]);
  }
  const edgesAdded: Array<[number, number]> = [];
  for (const key of toEdges) {
    if (!fromEdges.has(key)) edgesAdded.push([Math.floor(key / n), key % n]);
  }
  const byPath = (snap: SyncSnapshot) => (a: number, b: number) => cmp(snap.paths[a]!, snap.paths[b]!);
  const pairs = (snap: SyncSnapshot) => (a: [number, number], b: [number, number]) =>
    cmp(snap.paths[a[0]]!, snap.paths[b[0]]!) || cmp(snap.paths[a[1]]!, snap.paths[b[1]]!);
  added.sort(byPath(to));
  removed.sort(byPath(from));
  changed.sort((a, b) => cmp(to.paths[a.to]!, to.paths[b.to]!));
  edgesAdded.sort(pairs(to));
  edgesRemoved.sort(pairs(from));
  return { added, removed, changed, unchanged, edgesAdded, edgesRemoved };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
