/**
 * GET /api/graph/impact and GET /api/graph/diff: reads over one or two syncs' snapshots (graph/snapshot.ts), which
 * come from the merged graph's snapshot cache when the syncs are final. Paths beside /api/graph/nodes/{id}, so the
 * greedy node-id path never sees them.
 */
import type Router from '@koa/router';
import { InvalidArgumentError, NotFoundError } from '../../lib/errors.ts';
import { mount } from '../../lib/api/route.ts';
import { getDiff, getImpact } from '../../lib/api/routes/graph.ts';
import { decodeNodeId, encodeNodeId } from '../../lib/node-id.ts';
import { withReadTx } from '../db/read.ts';
import type { GraphAppDeps } from '../deps.ts';
import type { SnapshotCache } from '../caches.ts';
import { snapshotOf, type SyncSnapshot } from '../graph/snapshot.ts';
import { indexOf } from './adjacency.ts';
import { diffSnapshots } from './diff.ts';
import { walkImpact } from './impact.ts';
import { latestCompletedSync, latestSyncWithFile, requireGraph, syncById, type SyncRow } from '../syncs/pick.ts';

const ms = (started: number) => Math.round(performance.now() - started);

export function analysisRoutes(router: Router, deps: GraphAppDeps, snapshots: SnapshotCache): void {
  const { pool, graphTimeoutMs } = deps;

  mount(router, getImpact, async ({ query }) => {
    const started = performance.now();
    const { node_id: nodeId, direction, depth, limit, sync_id: syncId } = query;
    const { sourceId, filePath } = decodeNodeId(nodeId);
    const { sync, snap } = await withReadTx(pool, graphTimeoutMs, async (tx) => {
      const sync = syncId ? await syncById(tx, syncId, 'sync_id') : await latestSyncWithFile(tx, sourceId, filePath);
      if (!sync) throw new NotFoundError('node', `${nodeId} (in any completed sync of its source)`);
      requireGraph(sync);
      return { sync, snap: await snapshotOf(tx, snapshots, sync) };
    });
    const start = sync.source_id === sourceId ? indexOf(snap).byPath.get(filePath) : undefined;
    if (start === undefined) throw new NotFoundError('node', `${nodeId} in sync ${sync.id}`);
    const { hits, byDistance } = walkImpact(snap, start, direction, depth);
    const id = (i: number) => encodeNodeId(snap.sourceId, snap.paths[i]!);
    return {
      node_id: nodeId,
      sync_id: sync.id,
      direction,
      depth,
      total: hits.length,
      truncated: hits.length > limit,
      by_distance: Object.fromEntries(byDistance.map((n, d) => [String(d + 1), n])),
      items: hits.slice(0, limit).map((h) => ({
        node_id: id(h.index),
        file_path: snap.paths[h.index]!,
        name: snap.names[h.index]!,
        type: snap.types[h.index]!,
        distance: h.distance,
        via: h.via < 0 ? nodeId : id(h.via),
      })),
      query_ms: ms(started),
    };
  });

  mount(router, getDiff, async ({ query }) => {
    const started = performance.now();
    const { source_id: sourceId, from: fromId, to: toId, limit } = query;
    if (!sourceId && !fromId && !toId)
      throw new InvalidArgumentError('source_id', 'is required unless from or to is given');
    const { from, to, a, b } = await withReadTx(pool, graphTimeoutMs, async (tx) => {
      const given = fromId ? await syncById(tx, fromId, 'from') : undefined;
      const src = sourceId ?? given?.source_id;
      let to: SyncRow | undefined = toId ? await syncById(tx, toId, 'to') : undefined;
      if (!to) {
        to = await latestCompletedSync(tx, src!);
        if (!to) throw new NotFoundError('completed sync of source', src);
      }
      const source = src ?? to.source_id;
      sameSource(to, source, 'to');
      if (given) sameSource(given, source, 'from');
      const from = given ?? (await latestCompletedSync(tx, source, to));
      if (!from) throw new NotFoundError('completed sync created before', to.id);
      requireGraph(from);
      requireGraph(to);
      return { from, to, a: await snapshotOf(tx, snapshots, from), b: await snapshotOf(tx, snapshots, to) };
    });
    const d = diffSnapshots(a, b);
    const cut = <T>(xs: T[]) => xs.slice(0, limit);
    const file = (s: SyncSnapshot, i: number) => ({
      node_id: encodeNodeId(s.sourceId, s.paths[i]!),
      file_path: s.paths[i]!,
      type: s.types[i]!,
    });
    const edge = (s: SyncSnapshot, [x, y]: [number, number]) => ({
      source: encodeNodeId(s.sourceId, s.paths[x]!),
      target: encodeNodeId(s.sourceId, s.paths[y]!),
    });
    const counts = {
      added: d.added.length,
      removed: d.removed.length,
      changed: d.changed.length,
      unchanged: d.unchanged,
      edges_added: d.edgesAdded.length,
      edges_removed: d.edgesRemoved.length,
    };
    return {
      source_id: to.source_id,
      from: syncRef(from),
      to: syncRef(to),
      counts,
      truncated:
        Math.max(counts.added, counts.removed, counts.changed, counts.edges_added, counts.edges_removed) > limit,
      files: {
        added: cut(d.added).map((i) => file(b, i)),
        removed: cut(d.removed).map((i) => file(a, i)),
        changed: cut(d.changed).map((c) => ({
          ...file(b, c.to),
          from_hash: a.hashes[c.from]!,
          to_hash: b.hashes[c.to]!,
        })),
      },
      edges: { added: cut(d.edgesAdded).map((e) => edge(b, e)), removed: cut(d.edgesRemoved).map((e) => edge(a, e)) },
      query_ms: ms(started),
    };
  });
}

function sameSource(sync: SyncRow, sourceId: string, field: string): void {
  if (sync.source_id !== sourceId) {
    throw new InvalidArgumentError(field, `sync ${sync.id} belongs to source ${sync.source_id}, not ${sourceId}`);
  }
}

function syncRef(s: SyncRow) {
  return { id: s.id, status: s.status, created_at: s.created_at.toISOString() };
}
