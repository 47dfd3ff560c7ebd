import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { insertSource } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import type { SearchBody, StatsBody } from '../support/graph-api-types.ts';
import { atDistance, hashVector } from '../support/vectors.ts';
import { embedText, prepareInput } from '../../standins/model-host/embed.ts';
import { writeSyncFiles } from '../support/graph-data.ts';

describe('graph component: search (rule 6) and stats (rule 7)', () => {
  let app: GraphTestApp;
  let src: string;
  let latest: string;
  const query = 'where are requests routed';
  // What the model-host stand-in answers for the query the spec says is sent (`search_query: <q>`): file vectors at
  // chosen distances from it give exact expected distances only if that very text reached the model host.
  const q = embedText(prepareInput(`search_query: ${query}`).text, 896);
  const v = (d: number, seed: string) => atDistance(q, hashVector(seed, 896), d);

  before(async () => {
    app = await startGraphTestApp();
    src = await insertSource(app.db.pool);
    // Older completed sync: holds the closest vector of all, but is not searched.
    await writeSyncFiles(app.db.pool, src, [{ path: 'old.ts', embedding: v(0.01, 'old') }], { minutesAgo: 60 });
    ({ syncId: latest } = await writeSyncFiles(
      app.db.pool,
      src,
      [
        {
          path: 'router.ts',
          embedding: v(0.1, 'a'),
          deps: [['util.ts', 1]],
          symbols: [{ name: 'r', kind: 'function', line: 1 }],
        },
        { path: 'router.test.ts', type: 'test', embedding: v(0.2, 'b') },
        { path: 'util.ts', embedding: v(0.4, 'c') },
        { path: 'README.md', type: 'doc', language: 'markdown', embedding: v(0.3, 'd') },
        { path: 'noembed.ts' },
      ],
      { minutesAgo: 30 },
    ));
    // A newer sync still running: not searched either.
    await writeSyncFiles(app.db.pool, src, [{ path: 'running.ts', embedding: v(0.05, 'e') }], { status: 'running' });
  });
  after(() => app.close());

  it('embeds `search_query: <q>` and orders the latest completed sync by ascending cosine distance', async () => {
    app.models.resetStats();
    const res = await app.get<SearchBody>(`/api/graph/search?q=${encodeURIComponent(query)}`);
    assert.equal(res.status, 200);
    // One embedding request with one input, marked as a query by its `search_query: ` prefix, model `embeddings`.
    const { embeddings, log } = app.models.stats();
    assert.deepEqual(
      { requests: embeddings.requests, inputs: embeddings.inputs, queries: embeddings.queryInputs },
      { requests: 1, inputs: 1, queries: 1 },
    );
    assert.equal(embeddings.unprefixedInputs, 0);
    assert.deepEqual(
      log.map((l) => [l.endpoint, l.outcome, l.model]),
      [['embeddings', 'ok', 'embeddings']],
    );
    assert.deepEqual(
      res.body.results.map((r) => r.id),
      ['router.ts', 'router.test.ts', 'README.md', 'util.ts'].map((p) => `src_${src}:${p}`),
    );
    const d = res.body.results.map((r) => r.distance);
    [0.1, 0.2, 0.3, 0.4].forEach((want, i) => assert.ok(Math.abs(d[i]! - want) < 1e-4, `${d[i]} vs ${want}`));
    const first = res.body.results[0]!;
    assert.deepEqual(
      {
        name: first.name,
        type: first.type,
        language: first.language,
        description: first.description,
        sync_id: first.sync_id,
      },
      { name: 'router.ts', type: 'source', language: 'typescript', description: null, sync_id: latest },
    );
  });

  it('filters by type and honours limit', async () => {
    const q1 = encodeURIComponent(query);
    const tests = await app.get<SearchBody>(`/api/graph/search?q=${q1}&type=test`);
    assert.deepEqual(
      tests.body.results.map((r) => r.name),
      ['router.test.ts'],
    );
    const two = await app.get<SearchBody>(`/api/graph/search?q=${q1}&limit=2`);
    assert.deepEqual(
      two.body.results.map((r) => r.name),
      ['router.ts', 'router.test.ts'],
    );
    const none = await app.get<SearchBody>(`/api/graph/search?q=${q1}&type=asset`);
    assert.deepEqual(none.body.results, []);
  });

  it('400 naming the parameter for a missing q, a bad type or limit', async () => {
    for (const [query, field] of [
      ['', 'q'],
      ['q=%20%20', 'q'],
      ['q=x&type=binary', 'type'],
      ['q=x&limit=0', 'limit'],
      ['q=x&limit=101', 'limit'],
      [`q=${'x'.repeat(2001)}`, 'q'],
    ] as const) {
      const res = await app.get(`/api/graph/search?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.field, field, query);
    }
  });

  it('503 when the embedding endpoint is down', async () => {
    const down = await startGraphTestApp();
    await down.models.close();
    try {
      const res = await down.get('/api/graph/search?q=x');
      assert.equal(res.status, 503);
      assert.equal(res.body.error.code, 'UPSTREAM_UNAVAILABLE');
    } finally {
      down.models.close = () => Promise.resolve();
      await down.close();
    }
  });

  it('stats: node counts by type from file records, every edge of the graph', async () => {
    const res = await app.get<StatsBody>('/api/graph/stats');
    assert.equal(res.status, 200);
    // old.ts, router.ts, router.test.ts, util.ts, README.md, noembed.ts, running.ts
    assert.deepEqual(res.body.nodes_by_type, {
      source: 5,
      test: 1,
      config: 0,
      script: 0,
      doc: 1,
      data: 0,
      asset: 0,
      service: 0,
    });
    assert.equal(res.body.total_nodes, 7);
    assert.deepEqual(res.body.edges_by_label, { depends_on: 1, defines: 1 });
    assert.equal(res.body.total_edges, 2);
  });

  it('stats stay exact while counts are cached: a finished, cleaned or purged sync changes them', async () => {
    const db = app.db.pool;
    await db.query(`UPDATE sync_runs SET status = 'completed' WHERE status = 'running'`);
    const s = await insertSource(db);
    const { syncId } = await writeSyncFiles(db, s, [{ path: 'p.ts', deps: [['q.ts', 1]] }, { path: 'q.ts' }]);
    const first = (await app.get<StatsBody>('/api/graph/stats')).body;
    assert.equal(first.total_nodes, 9);
    assert.equal(first.total_edges, 3);
    assert.deepEqual((await app.get<StatsBody>('/api/graph/stats')).body, first, 'served again unchanged');
    await db.query(`UPDATE sync_runs SET status = 'cleaned' WHERE id = $1`, [syncId]);
    await db.query(`SELECT delete_sync_graph($1)`, [syncId]);
    const cleaned = (await app.get<StatsBody>('/api/graph/stats')).body;
    assert.equal(cleaned.total_edges, 2);
    assert.equal(cleaned.total_nodes, 9, 'cleaning keeps file records');
    await db.query(`DELETE FROM sync_runs WHERE id = $1`, [syncId]);
    assert.equal((await app.get<StatsBody>('/api/graph/stats')).body.total_nodes, 7);
  });
});
