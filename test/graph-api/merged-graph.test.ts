import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import zlib from 'node:zlib';
import pg from 'pg';
import { insertSource } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import type { GraphBody, GraphEdge, GraphNode } from '../support/graph-api-types.ts';
import { writeSyncFiles } from '../support/graph-data.ts';

describe('graph component: merged graph (rule 1)', () => {
  let app: GraphTestApp;
  let src: string;
  let other: string;
  let s1: string;
  let s2: string;
  let s3: string;
  let s4: string;
  let otherSync: string;
  const id = (path: string, source = src) => `src_${source}:${path}`;
  const node = (g: GraphBody, nid: string): GraphNode['data'] | undefined =>
    g.nodes.find((n) => n.data.id === nid)?.data;
  const edge = (g: GraphBody, a: string, b: string): GraphEdge['data'] | undefined =>
    g.edges.find((e) => e.data.source === a && e.data.target === b)?.data;

  before(async () => {
    app = await startGraphTestApp();
    const db = app.db.pool;
    src = await insertSource(db);
    other = await insertSource(db);
    // Written newest first, so "latest" can only come from created_at, never from insertion order.
    ({ syncId: s3 } = await writeSyncFiles(
      db,
      src,
      [
        { path: 'a.ts', text: 'v2\n', deps: [['b.ts', 1]] },
        { path: 'b.ts', type: 'source', deps: [['c.ts', 5]] },
        { path: 'c.ts' },
      ],
      { minutesAgo: 10 },
    ));
    ({ syncId: s1 } = await writeSyncFiles(
      db,
      src,
      [
        {
          path: 'a.ts',
          text: 'v1\n',
          deps: [
            ['b.ts', 2],
            ['only1.ts', 1],
          ],
        },
        { path: 'b.ts', type: 'test' },
        { path: 'only1.ts' },
      ],
      { minutesAgo: 30 },
    ));
    ({ syncId: s2 } = await writeSyncFiles(
      db,
      src,
      [{ path: 'a.ts', text: 'v2\n', deps: [['b.ts', 3]] }, { path: 'b.ts' }],
      { minutesAgo: 20 },
    ));
    // Not requested: its edge must never show.
    ({ syncId: s4 } = await writeSyncFiles(db, src, [{ path: 'a.ts' }, { path: 'c.ts', deps: [['a.ts', 9]] }], {
      minutesAgo: 5,
    }));
    ({ syncId: otherSync } = await writeSyncFiles(
      db,
      other,
      [{ path: 'a.ts', deps: [['z.ts', 4]] }, { path: 'z.ts' }],
      {
        minutesAgo: 1,
      },
    ));
  });
  after(() => app.close());

  it('merges three syncs: latest version per (source, path), divergent, loaded_sync_ids, aggregated edges', async () => {
    const res = await app.get<GraphBody>(`/api/graph?sync_ids=${s1},${s2},${s3}`);
    assert.equal(res.status, 200);
    const g = res.body;
    assert.deepEqual(g.nodes.map((n) => n.data.id).sort(), [id('a.ts'), id('b.ts'), id('c.ts'), id('only1.ts')].sort());

    const a = node(g, id('a.ts'))!;
    assert.equal(a.divergent, true, 'a.ts changed content between s1 and s2');
    assert.deepEqual(a.loaded_sync_ids, [s3, s2, s1], 'newest first');
    assert.equal(a.latest_sync_id, s3);
    assert.equal(a.source_id, src);
    assert.equal(a.file_path, 'a.ts');
    assert.equal(a.name, 'a.ts');

    const b = node(g, id('b.ts'))!;
    assert.equal(b.divergent, false, 'same content in every sync');
    assert.equal(b.type, 'source', 'fields come from the newest sync (s1 had type test)');
    assert.deepEqual(b.loaded_sync_ids, [s3, s2, s1]);

    const only1 = node(g, id('only1.ts'))!;
    assert.deepEqual(only1.loaded_sync_ids, [s1]);
    assert.equal(only1.latest_sync_id, s1);
    assert.equal(only1.divergent, false);
    assert.deepEqual(node(g, id('c.ts'))!.loaded_sync_ids, [s3]);

    assert.equal(g.edges.length, 3);
    assert.deepEqual(edge(g, id('a.ts'), id('b.ts')), {
      source: id('a.ts'),
      target: id('b.ts'),
      label: 'depends_on',
      weight: 6,
      weight_max: 3,
      loaded_sync_ids: [s3, s2, s1],
    });
    assert.deepEqual(edge(g, id('a.ts'), id('only1.ts'))?.loaded_sync_ids, [s1]);
    assert.equal(edge(g, id('b.ts'), id('c.ts'))?.weight, 5);
    assert.equal(edge(g, id('c.ts'), id('a.ts')), undefined, 'edges only from requested syncs');
    assert.ok(g.edges.every((e) => e.data.label === 'depends_on'));

    assert.equal(g.meta.node_count, 4);
    assert.equal(g.meta.edge_count, 3);
    assert.equal(g.meta.sync_count, 3);
    assert.ok(Number.isInteger(g.meta.query_ms) && g.meta.query_ms >= 0);
  });

  it('one sync alone: no divergence, its own weights', async () => {
    const g = (await app.get<GraphBody>(`/api/graph?sync_ids=${s2}`)).body;
    assert.deepEqual(g.nodes.map((n) => n.data.id).sort(), [id('a.ts'), id('b.ts')]);
    assert.equal(node(g, id('a.ts'))!.divergent, false);
    assert.deepEqual(edge(g, id('a.ts'), id('b.ts')), {
      source: id('a.ts'),
      target: id('b.ts'),
      label: 'depends_on',
      weight: 3,
      weight_max: 3,
      loaded_sync_ids: [s2],
    });
  });

  it('keeps sources apart: the same path in two sources is two nodes', async () => {
    const g = (await app.get<GraphBody>(`/api/graph?sync_ids=${s4},${otherSync}`)).body;
    assert.ok(node(g, id('a.ts'))!);
    assert.ok(node(g, id('a.ts', other))!);
    assert.equal(edge(g, id('a.ts', other), id('z.ts', other))?.weight, 4);
    assert.equal(edge(g, id('c.ts'), id('a.ts'))?.weight, 9);
    assert.equal(g.meta.node_count, 4);
  });

  it('400 naming sync_ids for missing, empty or non-UUID values; 404 naming unknown ids', async () => {
    for (const q of [
      '',
      '?sync_ids=',
      `?sync_ids=${s1},nope`,
      `?sync_ids=${s1},,${s2}`,
      `?sync_ids=${s1}&sync_ids=${s2}`,
    ]) {
      const res = await app.get(`/api/graph${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.error.code, 'INVALID_ARGUMENT');
      assert.equal(res.body.error.field, 'sync_ids');
    }
    const unknown = '3f2c8a4e-1b7d-4c2e-9a6f-0d1e2f3a4b5c';
    const res = await app.get(`/api/graph?sync_ids=${s1},${unknown}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'NOT_FOUND');
    assert.deepEqual(res.body.error.details, { unknown_sync_ids: [unknown] });
    const upper = await app.get<GraphBody>(`/api/graph?sync_ids=${s2.toUpperCase()}, ${s2}`);
    assert.equal(upper.status, 200, 'case and spaces do not matter; duplicates count once');
    assert.equal(upper.body.meta.sync_count, 1);
  });

  it('a cleaned sync contributes nothing, also after its snapshot was cached', async () => {
    const db = app.db.pool;
    const { syncId } = await writeSyncFiles(db, src, [{ path: 'x.ts', deps: [['y.ts', 1]] }, { path: 'y.ts' }]);
    const before = (await app.get<GraphBody>(`/api/graph?sync_ids=${syncId}`)).body;
    assert.equal(before.meta.node_count, 2);
    assert.equal(before.meta.edge_count, 1);
    await db.query(`UPDATE sync_runs SET status = 'cleaned' WHERE id = $1`, [syncId]);
    await db.query(`SELECT delete_sync_graph($1)`, [syncId]);
    const afterClean = (await app.get<GraphBody>(`/api/graph?sync_ids=${syncId}`)).body;
    assert.deepEqual([afterClean.meta.node_count, afterClean.meta.edge_count, afterClean.meta.sync_count], [0, 0, 1]);
  });

  it('a running sync is read afresh on every request (never cached)', async () => {
    const db = app.db.pool;
    const { syncId } = await writeSyncFiles(db, src, [{ path: 'r1.ts' }], { status: 'running' });
    assert.equal((await app.get<GraphBody>(`/api/graph?sync_ids=${syncId}`)).body.meta.node_count, 1);
    await writeSyncFiles(db, src, [{ path: 'r1.ts', deps: [['r2.ts', 1]] }, { path: 'r2.ts' }], { syncId });
    const g = (await app.get<GraphBody>(`/api/graph?sync_ids=${syncId}`)).body;
    assert.deepEqual([g.meta.node_count, g.meta.edge_count], [2, 1]);
  });

  it('the same JSON as is, gzip or br, as the client accepts; Content-Length, Content-Encoding and Vary', async () => {
    const running = (
      await writeSyncFiles(app.db.pool, other, [{ path: 'x.ts', deps: [['y.ts', 2]] }, { path: 'y.ts' }], {
        status: 'running',
      })
    ).syncId;
    /** A raw request: the bytes on the wire and the headers, nothing decoded by the client. */
    const raw = (path: string, acceptEncoding?: string) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
        const req = http.get(app.url + path, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });
        req.on('error', reject);
        req.on('response', (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('error', reject);
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(parts) }));
        });
      });
    const withoutTime = (text: string) => {
      const g = JSON.parse(text) as GraphBody;
      assert.equal(typeof g.meta.query_ms, 'number');
      return { ...g, meta: { ...g.meta, query_ms: 0 } };
    };
    // Final syncs (cached, compressed once) and a running one (built and compressed per request).
    for (const ids of [`${s1},${s2},${s3}`, otherSync, running]) {
      const path = `/api/graph?sync_ids=${ids}`;
      const plain = await raw(path);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(Number(plain.headers['content-length']), plain.bytes.length);
      assert.match(plain.headers.vary ?? '', /accept-encoding/i);
      const want = withoutTime(plain.bytes.toString('utf8'));
      assert.ok(want.nodes.length > 0);
      for (const [accept, encoding, decode] of [
        ['gzip', 'gzip', zlib.gunzipSync],
        ['br', 'br', zlib.brotliDecompressSync],
        ['gzip;q=0.5, br', 'br', zlib.brotliDecompressSync],
        ['br;q=0, gzip', 'gzip', zlib.gunzipSync],
        ['identity', undefined, (b: Buffer) => b],
        ['deflate', undefined, (b: Buffer) => b],
      ] as const) {
        for (let round = 0; round < 2; round++) {
          const r = await raw(path, accept);
          assert.equal(r.status, 200, accept);
          assert.equal(r.headers['content-encoding'], encoding, accept);
          assert.equal(Number(r.headers['content-length']), r.bytes.length, accept);
          assert.match(r.headers.vary ?? '', /accept-encoding/i);
          assert.deepEqual(withoutTime(decode(r.bytes).toString('utf8')), want, `${accept}, round ${round}`);
          if (encoding) assert.ok(r.bytes.length < plain.bytes.length, `${accept}: ${r.bytes.length} bytes`);
        }
      }
      // Node's fetch asks for compression by itself and decodes it.
      const viaFetch = await fetch(app.url + path);
      assert.ok(['gzip', 'br'].includes(viaFetch.headers.get('content-encoding') ?? ''));
      assert.deepEqual(withoutTime(await viaFetch.text()), want);
    }
    // Errors are unchanged JSON bodies.
    const bad = await raw('/api/graph?sync_ids=nope', 'gzip, br');
    assert.equal(bad.status, 400);
    assert.equal((JSON.parse(bad.bytes.toString('utf8')) as { error: { field: string } }).error.field, 'sync_ids');
  });

  it('504 TIMEOUT when the read exceeds GRAPH_QUERY_TIMEOUT_SECONDS', async () => {
    const slow = await startGraphTestApp({ graphTimeoutMs: 300 });
    const blocker = new pg.Client({ connectionString: slow.db.url });
    await blocker.connect();
    try {
      const s = await insertSource(slow.db.pool);
      const { syncId } = await writeSyncFiles(slow.db.pool, s, [{ path: 'a.ts' }]);
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE file_records IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const res = await slow.get(`/api/graph?sync_ids=${syncId}`);
      assert.equal(res.status, 504);
      assert.equal(res.body.error.code, 'TIMEOUT');
      assert.ok(Date.now() - started < 5000);
      await blocker.query('ROLLBACK');
      assert.equal((await slow.get(`/api/graph?sync_ids=${syncId}`)).status, 200);
    } finally {
      await blocker.end();
      await slow.close();
    }
  });
});
