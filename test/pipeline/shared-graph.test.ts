/**
 * An unchanged re-sync shares its predecessor's graph (issue 30, growth; schema V50): a sync of the same commit with
 * the same analysis key writes its file records but no vertex, edge or per-sync graph-table row, every read of it
 * answers as the predecessor's does (merged graph, node detail, file, impact, diff, symbol detail, symbol impact),
 * and retention keeps the shared rows while a sync sharing them is kept, removing them with the last such sync.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRepo, MULTI_LANGUAGE_FILES, type TestRepo } from '../support/git-repos.ts';
import { createHarness, insertPendingSync, insertSource, runSync, type Harness } from '../support/pipeline.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import { syncSnapshot } from '../support/sync-snapshot.ts';
import { withTransaction, type Queryable } from '../../lib/db.ts';
import { cleanRun, getSync, purgeRun } from '../../lib/sync-runs/index.ts';
import { resetSyncData } from '../../activities/store/reset.ts';

/** Graph rows carrying the sync's own id, in every label, and its unresolved symbol uses. */
async function ownGraphRows(db: Queryable, syncId: string): Promise<number> {
  const labels = await db.query<{ name: string }>(
    `SELECT l.name FROM ag_catalog.ag_label l JOIN ag_catalog.ag_graph g ON g.graphid = l.graph
      WHERE g.name = 'service' AND l.name NOT LIKE '\\_ag\\_label\\_%'`,
  );
  let n = 0;
  for (const { name } of labels.rows) {
    const r = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM service."${name}"
        WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype)
              = ('"' || $1::text || '"')::ag_catalog.agtype`,
      [syncId],
    );
    n += r.rows[0]!.n;
  }
  // The symbol graph's unresolved uses (per-sync metadata registered beside it, e.g. search statistics, is the
  // sync's own whatever its graph).
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sync_symbol_unresolved WHERE sync_id = $1`, [
    syncId,
  ]);
  return n + r.rows[0]!.n;
}

/** A JSON body with the given sync ids replaced by a placeholder and timings removed, for comparing two syncs' reads. */
function normalised(body: unknown, ids: string[]): unknown {
  let text = JSON.stringify(body);
  for (const id of ids) text = text.replaceAll(id, '<sync>');
  return JSON.parse(text, (k, v: unknown) => (k === 'query_ms' ? undefined : v));
}

describe('an unchanged re-sync shares its predecessor graph', () => {
  let h: Harness;
  let app: GraphTestApp;
  let repo: TestRepo;
  let sourceId: string;
  let first: string;
  let second: string;
  let third: string;

  async function sync(): Promise<string> {
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    assert.equal((await runSync(h, sourceId, syncId)).status, 'completed');
    return syncId;
  }
  const graphSyncId = async (syncId: string) =>
    (await h.db.pool.query<{ g: string | null }>(`SELECT graph_sync_id AS g FROM sync_runs WHERE id = $1`, [syncId]))
      .rows[0]!.g;

  /** The reads of one sync that depend on its graph, through the API. */
  async function reads(syncId: string): Promise<Record<string, unknown>> {
    const node = encodeURIComponent(`src_${sourceId}:src/util.ts`);
    const symbol = encodeURIComponent(`src_${sourceId}:src/util.ts#helper:function`);
    const get = async (path: string) => {
      const r = await app.get(path);
      assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
      return r.body;
    };
    return {
      merged: await get(`/api/graph?sync_ids=${syncId}`),
      detail: await get(`/api/graph/nodes/${node}?sync_id=${syncId}`),
      file: await get(`/api/graph/nodes/${node}/file?sync_id=${syncId}`),
      impact: await get(`/api/graph/impact?node_id=${node}&sync_id=${syncId}`),
      symbol: await get(`/api/graph/symbol?symbol=${symbol}&sync_id=${syncId}`),
      symbolImpact: await get(`/api/graph/symbol/impact?symbol=${symbol}&sync_id=${syncId}`),
    };
  }

  const edgeStats = async () => {
    const r = await app.get<{ edges_by_label: Record<string, number> }>('/api/graph/stats');
    return Object.fromEntries(Object.entries(r.body.edges_by_label).filter(([, n]) => n > 0));
  };
  const times = (edges: Record<string, number>, k: number) =>
    Object.fromEntries(
      Object.entries(edges)
        .filter(([, n]) => n > 0)
        .map(([l, n]) => [l, n * k]),
    );

  before(async () => {
    h = await createHarness();
    await h.startWorker();
    app = await startGraphTestApp({ db: h.db, ingestionUrl: 'http://127.0.0.1:9' });
    repo = createRepo(MULTI_LANGUAGE_FILES);
    sourceId = await insertSource(h.db.pool, { url: repo.dir });
  });
  after(async () => {
    await app?.close();
    await h?.close();
    repo?.remove();
  });

  it('writes no graph rows of its own, and every read of it equals the same read of the sync it shares', async () => {
    first = await sync();
    second = await sync();
    third = await sync();
    assert.equal(await graphSyncId(first), null);
    assert.equal(await graphSyncId(second), first);
    // One hop: the third shares the graph the second shares, not the second.
    assert.equal(await graphSyncId(third), first);
    assert.ok((await ownGraphRows(h.db.pool, first)) > 0);
    assert.equal(await ownGraphRows(h.db.pool, second), 0);
    assert.equal(await ownGraphRows(h.db.pool, third), 0);
    // Its own file records, the same stats (vertices and edges per label) and the same graph.
    const stats = async (id: string) =>
      (await h.db.pool.query<{ s: Record<string, unknown> }>(`SELECT stats AS s FROM sync_runs WHERE id = $1`, [id]))
        .rows[0]!.s;
    const [a, b] = [await stats(first), await stats(second)];
    assert.deepEqual([b.vertices, b.edges, b.files, b.chunks], [a.vertices, a.edges, a.files, a.chunks]);
    assert.deepEqual(await syncSnapshot(h.db.pool, second), await syncSnapshot(h.db.pool, first));

    const x = await reads(first);
    assert.ok(((x.symbol as { callers: unknown[] }).callers ?? []).length > 0, JSON.stringify(x.symbol));
    const y = await reads(third);
    assert.deepEqual(normalised(y, [third, first]), normalised(x, [third, first]));
    // The file records are the sharing sync's own; its neighbours come from the shared graph.
    const detail = y.detail as { node: { sync_id: string }; neighbors: Array<{ rel_type: string }> };
    assert.equal(detail.node.sync_id, third);
    assert.deepEqual([...new Set(detail.neighbors.map((n) => n.rel_type))].sort(), ['defines', 'depends_on']);
    const diff = await app.get<{ counts: Record<string, number | undefined> }>(
      `/api/graph/diff?from=${first}&to=${third}`,
    );
    assert.equal(diff.status, 200);
    assert.deepEqual(
      [diff.body.counts.added, diff.body.counts.removed, diff.body.counts.changed, diff.body.counts.edges_added],
      [0, 0, 0, 0],
    );
    assert.ok((diff.body.counts.unchanged ?? 0) > 0);
    // Platform-wide counts: each sync's graph counts, stored once or not.
    assert.deepEqual(await edgeStats(), times(a.edges as Record<string, number>, 3));
  });

  it('retention keeps a shared graph while a sync sharing it is kept, and removes it with the last one', async () => {
    const before = await reads(third);
    const clean = (id: string) => withTransaction(h.db.pool, (tx) => cleanRun(tx, id));
    // The sync holding the graph is cleaned: it reads as cleaned, the rows stay for the syncs sharing them.
    assert.equal((await clean(first))!.removed, 0);
    const merged = await app.get<{ nodes: unknown[] }>(`/api/graph?sync_ids=${first}`);
    assert.equal(merged.body.nodes.length, 0);
    assert.deepEqual(normalised(await reads(third), [third]), normalised(before, [third]));
    const edges = (
      await h.db.pool.query<{ e: Record<string, number> }>(
        `SELECT stats -> 'edges' AS e FROM sync_runs WHERE id = $1`,
        [first],
      )
    ).rows[0]!.e;
    assert.deepEqual(await edgeStats(), times(edges, 2), 'the cleaned sync has no graph to count');
    // It cannot be purged before them.
    await assert.rejects(
      withTransaction(h.db.pool, async (tx) => purgeRun(tx, (await getSync(tx, first, true))!)),
      /share it/,
    );
    await clean(second);
    assert.ok((await ownGraphRows(h.db.pool, first)) > 0, 'the third sync still shares it');
    // The last sync sharing it is cleaned: the graph goes with it.
    assert.ok((await clean(third))!.removed > 0);
    assert.equal(await ownGraphRows(h.db.pool, first), 0);
    // Purged newest first, nothing of the three is left.
    for (const id of [third, second, first]) {
      await withTransaction(h.db.pool, async (tx) => purgeRun(tx, (await getSync(tx, id, true))!));
    }
    const left = await h.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM sync_runs WHERE source_id = $1`, [
      sourceId,
    ]);
    assert.equal(left.rows[0]!.n, 0);
  });

  it('a reset never deletes a graph other syncs share; a reset sharer releases a cleaned graph', async () => {
    const holder = await sync();
    const sharer = await sync();
    assert.equal(await graphSyncId(sharer), holder);
    const before = await reads(sharer);
    const rows = await ownGraphRows(h.db.pool, holder);
    const records = async (id: string) =>
      (await h.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM sync_files WHERE sync_id = $1`, [id]))
        .rows[0]!.n;
    const holderRecords = await records(holder);
    // The run's first clone (a retry, an operator's Reset) starts by resetting its data: refused for the holder.
    await assert.rejects(resetSyncData(h.db.pool, holder), /share/);
    // Any other path to delete_sync_graph is refused by the database (V52), naming the sharer.
    await assert.rejects(
      h.db.pool.query(`SELECT delete_sync_graph($1)`, [holder]),
      (err: { code?: string; message?: string }) => {
        assert.equal(err.code, '55006');
        assert.match(err.message ?? '', new RegExp(sharer));
        return true;
      },
    );
    assert.equal(await ownGraphRows(h.db.pool, holder), rows);
    assert.equal(await records(holder), holderRecords);
    assert.deepEqual(normalised(await reads(sharer), [sharer]), normalised(before, [sharer]));
    // The holder is cleaned (rows held for the sharer); the sharer's reset releases them: nothing holds them now.
    const clean = (id: string) => withTransaction(h.db.pool, (tx) => cleanRun(tx, id));
    assert.equal((await clean(holder))!.removed, 0);
    assert.equal(await ownGraphRows(h.db.pool, holder), rows);
    await resetSyncData(h.db.pool, sharer);
    assert.equal(await graphSyncId(sharer), null);
    assert.equal(await ownGraphRows(h.db.pool, holder), 0);
  });
});
