/**
 * Benchmark of the graph component's read endpoints over real HTTP on a generated graph (bench/graph-data.ts:
 * 10k files and 40k depends_on edges per sync, three syncs, written with the pipeline's own writers).
 *
 *   node --import tsx bench/graph-api.ts            # fresh database, dropped at the end
 *   BENCH_DB=ckg_bench_graph node --import tsx bench/graph-api.ts   # create once, then reuse (kept)
 *
 * Prints p50/p95 per endpoint and the query plans behind them. Search is timed with an in-process query embedder
 * (the target excludes the embedding call). Requests ask for compression as browsers do (`accept-encoding: gzip,
 * deflate, br`; Node's fetch decodes it), except the rows marked `identity`. The time includes reading and decoding
 * the whole body to text; the size shown is what crossed the wire.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createPool } from '../lib/db.ts';
import { createLogger } from '../lib/log.ts';
import { DEFAULT_URL_POLICY } from '../lib/source-url.ts';
import { migrate } from '../schema/migrate.ts';
import { createGraphApp } from '../graph-api/app.ts';
import { createIngestionClient } from '../graph-api/ingestion-client.ts';
import { createDenseClient } from '../graph-api/summary/dense-client.ts';
import { createSummaryService } from '../graph-api/summary/service.ts';
import { generate, rng, unitVector, type BenchData } from './graph-data.ts';

const SHAPE = { files: 10_000, edgesPerSync: 40_000, syncs: 3, dim: 896 };
const base = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:55432/ckg';
const dbUrl = (name: string) => {
  const u = new URL(base);
  u.pathname = '/' + name;
  return u.toString();
};

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: dbUrl('postgres') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function main(): Promise<void> {
  const keep = process.env.BENCH_DB;
  const name = keep ?? `ckg_bench_graph_${Date.now()}`;
  const exists = await admin(
    async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount,
  );
  if (!exists) await admin((c) => c.query(`CREATE DATABASE ${name}`));
  await migrate(dbUrl(name));
  const pool = createPool(dbUrl(name), { max: 10 });
  let data: BenchData;
  const meta = await pool.query<{ v: BenchData }>(
    `SELECT meta -> 'bench' AS v FROM sources WHERE owner = 'bench' AND meta ? 'bench' LIMIT 1`,
  );
  if (meta.rows[0]) {
    data = meta.rows[0].v;
    console.log(`reusing ${name}`);
  } else {
    const t0 = Date.now();
    data = await generate(pool, SHAPE);
    await pool.query(`UPDATE sources SET meta = jsonb_build_object('bench', $2::jsonb) WHERE id = $1`, [
      data.sourceId,
      JSON.stringify(data),
    ]);
    console.log(`generated in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const counts = await pool.query<{ files: string; edges: string; chunks: string }>(
    `SELECT (SELECT count(*) FROM file_records) AS files, (SELECT count(*) FROM service.depends_on) AS edges,
            (SELECT count(*) FROM content_chunks) AS chunks`,
  );
  console.log(`data: ${JSON.stringify(counts.rows[0])} across ${data.syncIds.length} syncs`);

  const log = createLogger('graph-api', { level: 'error' });
  const queryVector = unitVector(rng(7), SHAPE.dim);
  const app = createGraphApp({
    pool,
    log,
    ingestion: createIngestionClient('http://127.0.0.1:9', 1000),
    sourceUrls: DEFAULT_URL_POLICY,
    embedder: { embedOne: () => Promise.resolve(queryVector) },
    summaries: createSummaryService({
      pool,
      log,
      dense: createDenseClient({
        url: 'http://127.0.0.1:9/v1/chat/completions',
        model: 'dense',
        apiKey: undefined,
        maxTokens: 400,
        timeoutMs: 1000,
      }),
      budget: { totalChars: 100_000, fileRatio: 0.88, neighborRatio: 0.1, neighborChars: 1200, edgeNeighbors: 10 },
    }),
    graphTimeoutMs: 60_000,
  });
  const server: Server = await new Promise((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const serverMs: number[] = [];
  const BROWSER = 'gzip, deflate, br';
  const timeOne = async (
    path: string,
    acceptEncoding = BROWSER,
  ): Promise<{ ms: number; bytes: number; wire: string }> => {
    const t = performance.now();
    const res = await fetch(url + path, { headers: { 'accept-encoding': acceptEncoding } });
    const text = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
    // The merged graph reports its own server-side time in meta.query_ms (the last object of the body).
    const meta = /"query_ms":(\d+)\}\}$/.exec(text.slice(-200));
    if (meta) serverMs.push(Number(meta[1]));
    const length = Number(res.headers.get('content-length') ?? text.length);
    const encoding = res.headers.get('content-encoding') ?? 'identity';
    return { ms, bytes: length, wire: `${(length / 1024).toFixed(0)} KiB ${encoding}` };
  };
  /** Time to the last byte on the wire, nothing decoded (what the server and the transport cost). */
  const wireOnly = (path: string, acceptEncoding: string) =>
    new Promise<number>((resolve, reject) => {
      const t = performance.now();
      http
        .get(url + path, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
          res.on('data', () => undefined);
          res.on('end', () => resolve(performance.now() - t));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  const rows: string[] = [];
  const benchWire = async (label: string, path: string, n: number, acceptEncoding: string) => {
    for (let i = 0; i < 3; i++) await wireOnly(path, acceptEncoding);
    const ms: number[] = [];
    for (let i = 0; i < n; i++) ms.push(await wireOnly(path, acceptEncoding));
    rows.push(
      `${label.padEnd(40)} p50 ${pct(ms, 50).toFixed(1).padStart(7)} ms   p95 ${pct(ms, 95).toFixed(1).padStart(7)} ms`,
    );
    console.log(rows.at(-1));
  };
  const bench = async (label: string, paths: string[], n: number, target: number, acceptEncoding = BROWSER) => {
    for (let i = 0; i < 3; i++) await timeOne(paths[i % paths.length]!, acceptEncoding);
    const ms: number[] = [];
    let wire = '';
    for (let i = 0; i < n; i++) {
      const r = await timeOne(paths[i % paths.length]!, acceptEncoding);
      ms.push(r.ms);
      wire = r.wire;
    }
    const p50 = pct(ms, 50);
    const p95 = pct(ms, 95);
    rows.push(
      `${label.padEnd(40)} p50 ${p50.toFixed(1).padStart(7)} ms   p95 ${p95.toFixed(1).padStart(7)} ms   target ${String(target).padStart(3)} ms   ${p50 <= target ? 'ok ' : 'MISS'}   (${wire})`,
    );
    console.log(rows.at(-1));
  };

  const ids = data.syncIds.join(',');
  // Cold: the first request after start-up reads the three syncs' snapshots from the database (and compresses).
  const cold = await timeOne(`/api/graph?sync_ids=${ids}`);
  console.log(`merged graph, cold (3 snapshots read, merged, compressed once): ${cold.ms.toFixed(0)} ms, ${cold.wire}`);
  const node = (p: string) => `/api/graph/nodes/${encodeURIComponent(`src_${data.sourceId}:${p}`)}`;
  const serverSide = () => {
    console.log(
      `  meta.query_ms (server side, before the body is sent): p50 ${pct(serverMs, 50)} p95 ${pct(serverMs, 95)}`,
    );
    serverMs.length = 0;
  };
  serverMs.length = 0;
  await bench('GET /api/graph (3 syncs, warm)', [`/api/graph?sync_ids=${ids}`], 20, 50);
  serverSide();
  await bench('GET /api/graph (3 syncs, warm, identity)', [`/api/graph?sync_ids=${ids}`], 20, 50, 'identity');
  serverSide();
  await benchWire('  same, to the last byte, gzip not decoded', `/api/graph?sync_ids=${ids}`, 20, 'gzip');
  await benchWire('  same, to the last byte, br not decoded', `/api/graph?sync_ids=${ids}`, 20, 'br');
  await benchWire('  same, to the last byte, identity', `/api/graph?sync_ids=${ids}`, 20, 'identity');
  await bench('GET /api/graph (1 sync, warm)', [`/api/graph?sync_ids=${data.syncIds.at(-1)}`], 20, 50);
  serverSide();
  await bench(
    'GET /api/graph (1 sync, warm, identity)',
    [`/api/graph?sync_ids=${data.syncIds.at(-1)}`],
    20,
    50,
    'identity',
  );
  serverSide();
  await bench('GET /api/graph/nodes/{id}', data.samplePaths.map(node), 100, 5);
  await bench(
    'GET /api/graph/nodes/{id}?sync_id',
    data.samplePaths.map((p) => `${node(p)}?sync_id=${data.syncIds[0]}`),
    100,
    5,
  );
  await bench('GET /api/graph/nodes/{id}/file (1 MB)', [`${node(data.bigFilePath)}/file`], 50, 20);
  await bench('GET /api/graph/stats', ['/api/graph/stats'], 100, 5);
  await bench('GET /api/graph/search', ['/api/graph/search?q=x'], 100, 15);
  await bench('GET /api/graph/search?type=test', ['/api/graph/search?q=x&type=test'], 100, 15);
  await bench('GET /api/sources', ['/api/sources'], 100, 5);
  console.log('\nsummary');
  for (const r of rows) console.log('  ' + r);

  if (process.env.BENCH_PLANS !== '0') {
    const c = await pool.connect();
    const plan = async (title: string, sql: string, params: unknown[]) => {
      const r = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING ON) ${sql}`, params);
      // Long literals (the query vector) are cut so the plan stays readable.
      const lines = r.rows.map((x) => x['QUERY PLAN']).map((l) => (l.length > 240 ? `${l.slice(0, 240)}...` : l));
      console.log(`\n-- ${title}\n` + lines.join('\n'));
    };
    const fid = (
      await c.query<{ id: string }>(`SELECT id FROM file_records WHERE sync_id = $1 AND file_path = $2`, [
        data.syncIds.at(-1),
        data.samplePaths[1],
      ])
    ).rows[0]!.id;
    const q = await import('../graph-api/graph/node-queries.ts');
    await plan('node detail: file record (newest completed sync) + neighbours, one statement', q.nodeDetailSql.latest, [
      data.sourceId,
      data.samplePaths[1],
    ]);
    await plan('node file: file record + chunks, one statement', q.nodeTextSql.latest, [
      data.sourceId,
      data.bigFilePath,
    ]);
    await plan('summary context: neighbours of a file', q.neighborsSql, [fid]);
    await plan('stats: nodes by type', `SELECT type, count(*) FROM file_records GROUP BY type`, []);
    await plan('stats: edges by label', `SELECT tableoid, count(*) FROM service._ag_label_edge GROUP BY tableoid`, []);
    await c.query('BEGIN');
    await c.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
    await plan(
      'search (newest completed sync)',
      `SELECT f.file_path FROM file_records f WHERE f.sync_id = ANY($1::uuid[]) AND f.embedding IS NOT NULL ORDER BY f.embedding <=> $2::vector LIMIT 20`,
      [[data.syncIds.at(-1)], `[${queryVector.join(',')}]`],
    );
    await c.query('COMMIT');
    c.release();
  }

  await new Promise<void>((r) => {
    server.close(() => r());
    server.closeAllConnections();
  });
  await pool.end();
  if (!keep) await admin((c) => c.query(`DROP DATABASE ${name} WITH (FORCE)`));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
