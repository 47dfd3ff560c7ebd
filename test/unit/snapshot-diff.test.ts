/**
 * The diff of two sync snapshots (graph-api/analysis/diff.ts) by its rules, on snapshots whose files come in different
 * orders: edges compared by the paths of their ends, each pair once however often a sync holds it, an edge of an added
 * file is added and one of a removed file (or to a removed file) removed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { diffSnapshots } from '../../graph-api/analysis/diff.ts';
import type { SyncSnapshot } from '../../graph-api/graph/snapshot-types.ts';

function snapshot(files: Record<string, string>, edges: Array<[string, string]>): SyncSnapshot {
  const paths = Object.keys(files);
  const at = (p: string) => paths.indexOf(p);
  return {
    syncId: 's',
    sourceId: 'src',
    paths,
    names: paths,
    types: paths.map(() => 'code'),
    domains: paths.map(() => 'd'),
    hashes: paths.map((p) => files[p]!),
    edgeFrom: Int32Array.from(edges.map(([a]) => at(a))),
    edgeTo: Int32Array.from(edges.map(([, b]) => at(b))),
    edgeWeight: new Float64Array(edges.length),
    bytes: 0,
  };
}

/** The diff as paths, for comparing with the rules. */
function byPaths(from: SyncSnapshot, to: SyncSnapshot) {
  const d = diffSnapshots(from, to);
  const pair =
    (s: SyncSnapshot) =>
    ([a, b]: [number, number]) =>
      `${s.paths[a]} -> ${s.paths[b]}`;
  return {
    added: d.added.map((i) => to.paths[i]),
    removed: d.removed.map((j) => from.paths[j]),
    changed: d.changed.map((c) => to.paths[c.to]),
    unchanged: d.unchanged,
    edgesAdded: d.edgesAdded.map(pair(to)),
    edgesRemoved: d.edgesRemoved.map(pair(from)),
  };
}

describe('snapshot diff', () => {
  it('compares edges by their paths, once per pair, across files in other orders', () => {
    const from = snapshot({ a: '1', b: '1', c: '1', gone: '1' }, [
      ['a', 'b'],
      ['a', 'b'], // held twice: one pair
      ['b', 'c'],
      ['c', 'gone'], // to a removed file
      ['gone', 'a'], // from a removed file
      ['c', 'a'],
    ]);
    const to = snapshot({ new: '1', c: '2', b: '1', a: '1' }, [
      ['c', 'a'],
      ['a', 'b'],
      ['new', 'a'], // from an added file
      ['new', 'a'],
      ['a', 'c'], // new between kept files
      ['a', 'c'],
    ]);
    assert.deepEqual(byPaths(from, to), {
      added: ['new'],
      removed: ['gone'],
      changed: ['c'],
      unchanged: 2,
      edgesAdded: ['a -> c', 'new -> a'],
      edgesRemoved: ['b -> c', 'c -> gone', 'gone -> a'],
    });
  });

  it('a snapshot against itself or an equal one has no differences', () => {
    const edges: Array<[string, string]> = [
      ['x', 'y'],
      ['y', 'x'],
      ['x', 'x'],
    ];
    const one = snapshot({ x: '1', y: '2' }, edges);
    const same = snapshot({ y: '2', x: '1' }, [...edges].reverse());
    for (const other of [one, same]) {
      assert.deepEqual(byPaths(one, other), {
        added: [],
        removed: [],
        changed: [],
        unchanged: 2,
        edgesAdded: [],
        edgesRemoved: [],
      });
    }
  });
});
