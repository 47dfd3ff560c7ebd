/**
 * Difference between two snapshots of one source: files added, removed and changed (content_hash differs), and
 * depends_on edges added and removed (by the paths of their ends). Pure computation on the snapshots (usually
 * cached): the edges are compared per file over the snapshots' adjacency lists (adjacency.ts, built once per
 * snapshot), with typed arrays as per-file marks instead of sets of every edge of both syncs (issue 30: the sets
 * were most of a diff's time, ~10 ms for the Go standard library's 27k edges).
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

  const { edgesAdded, edgesRemoved } = diffEdges(from, to, fromToTo);
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

/**
 * Edges of `to` whose pair of paths `from` lacks (added, as indices into `to`), and edges of `from` whose pair `to`
 * lacks (removed, as indices into `from`), each pair once. `fromToTo[j]`: the index in `to` of `from`'s file j, or -1.
 * A file of `to` is the image of at most one file of `from` (paths are unique), so marks stamped with the file's index
 * in `to` never need clearing.
 */
function diffEdges(
  from: SyncSnapshot,
  to: SyncSnapshot,
  fromToTo: Int32Array,
): { edgesAdded: Array<[number, number]>; edgesRemoved: Array<[number, number]> } {
  const n = to.paths.length;
  const m = from.paths.length;
  const outTo = indexOf(to).out;
  const outFrom = indexOf(from).out;
  const inTo = new Int32Array(n).fill(-1); // inTo[t] === i: i -> t is an edge of `to`
  const inFrom = new Int32Array(n).fill(-1); // inFrom[t] === i: some edge of `from` maps to i -> t
  const seenTo = new Int32Array(n).fill(-1); // seenTo[t] === i: i -> t already reported as added
  const seenFrom = new Int32Array(m).fill(-1); // seenFrom[b] === j: j -> b already seen
  const matched = new Uint8Array(n);
  const edgesAdded: Array<[number, number]> = [];
  const edgesRemoved: Array<[number, number]> = [];
  const added = (i: number) => {
    for (let k = outTo.offsets[i]!; k < outTo.offsets[i + 1]!; k++) {
      const t = outTo.targets[k]!;
      if (seenTo[t] === i || inFrom[t] === i) continue;
      seenTo[t] = i;
      edgesAdded.push([i, t]);
    }
  };
  for (let j = 0; j < m; j++) {
    const i = fromToTo[j]!;
    if (i >= 0) for (let k = outTo.offsets[i]!; k < outTo.offsets[i + 1]!; k++) inTo[outTo.targets[k]!] = i;
    for (let k = outFrom.offsets[j]!; k < outFrom.offsets[j + 1]!; k++) {
      const fb = outFrom.targets[k]!;
      if (seenFrom[fb] === j) continue;
      seenFrom[fb] = j;
      const b = fromToTo[fb]!;
      if (i >= 0 && b >= 0) {
        inFrom[b] = i;
        if (inTo[b] === i) continue;
      }
      edgesRemoved.push([j, fb]);
    }
    if (i >= 0) {
      matched[i] = 1;
      added(i);
    }
  }
  // Files of `to` that `from` does not have: every edge from them is new.
  for (let i = 0; i < n; i++) if (!matched[i]) added(i);
  return { edgesAdded, edgesRemoved };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
