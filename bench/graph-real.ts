/**
 * Benchmark of the graph component's reads on a real graph: the Go standard library ($(go env GOROOT)/src, ≈11k
 * files, ≈27k depends_on, ≈100k Symbol vertices and defines edges), synced through the API of a running stack
 * (`bash scripts/stack.sh up`) as a user would, then read straight from the graph component over HTTP, 100
 * requests per endpoint. bench/graph-api.ts does the same on a generated graph (no symbols).
 *
 *   set -a; source .stack/env; set +a
 *   node --import tsx bench/graph-real.ts [--src DIR] [--syncs 3] [--n 100] [--resync]
 *
 * The source (owner `bench`, name `go-real`) and its completed syncs are kept in the stack's database and reused
 * by later runs (`--resync` adds syncs up to --syncs again). The first sync embeds files (the stack's model host),
 * so search has vectors; the others skip embeddings. Prints p50/p95/p99 per endpoint, then EXPLAIN ANALYZE of the
 * statements behind node detail and node file on this data. Times run to the last byte on the wire, the body
 * counted but not decoded (so a large brotli body measures the server and the transport, not this client's
 * decompression); bodies are asked for as `br` (what browsers get), the merged graph also as `identity`.
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createPool } from '../lib/db.ts';
import { nodeDetailSql, nodeTextSql } from '../graph-api/graph/node-queries.ts';
import { snapshotOf } from './support/snapshot.ts';
import { call, graphUrl, syncToEnd, type BenchRun } from './support/api.ts';
import { parseArgs } from 'node:util';
import type { Source } from '../lib/api/routes/sources.ts';

const { values: args } = parseArgs({
  options: {
    src: { type: 'string' },
    syncs: { type: 'string', default: '3' },
    n: { type: 'string', default: '100' },
  },
});
const goSrc = args.src ?? join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src');
const wantSyncs = Number(args.syncs);
const N = Number(args.n);
const env = (k: string, d?: string): string => {
  const v = process.env[k] ?? d;
  if (v === undefined) throw new Error(`${k} is not set: source the stack's .stack/env first`);
  return v;
};

async function ensureSyncs(): Promise<{ sourceId: string; syncIds: string[] }> {
  const repo = snapshotOf(goSrc);
  const source = await call<Source>('POST', `${graphUrl}/api/sources`, {
    source_type: 'github',
    owner: 'bench',
    name: 'go-real',
    url: repo,
    default_branch: 'main',
  });
  const completed = async () =>
    (
      await call<{ items: BenchRun[] }>(
        'GET',
        `${graphUrl}/api/syncs?source_id=${source.id}&status=completed&limit=100`,
      )
    ).items;
  let runs = await completed();
  while (runs.length < wantSyncs) {
    const embeddings = runs.length === 0;
    await call('PATCH', `${graphUrl}/api/sources/${source.id}`, { config: { ...source.config, embeddings } });
    const { run, ms } = await syncToEnd(source.id, 60 * 60_000);
    if (run.status !== 'completed') throw new Error(`sync ${run.id} ended ${run.status}: ${run.error ?? ''}`);
    console.log(
      `synced ${repo} (embeddings ${embeddings ? 'on' : 'off'}) in ${(ms / 1000).toFixed(1)} s through the API`,
    );
    runs = await completed();
  }
  return { sourceId: source.id, syncIds: runs.slice(0, wantSyncs).map((r) => r.id) };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function main(): Promise<void> {
  const { sourceId, syncIds } = await ensureSyncs();
  const pool = createPool(env('DATABASE_URL'), { max: 2 });
  const counts = (
    await pool.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM file_records WHERE sync_id = $1) AS files,
              (SELECT count(*) FROM content_chunks c JOIN file_records f ON f.id = c.file_id WHERE f.sync_id = $1) AS chunks,
              (SELECT count(*) FROM service."Symbol"
                WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = $2::text::ag_catalog.agtype) AS symbols,
              (SELECT count(*) FROM service.depends_on) AS depends_on_all,
              (SELECT count(*) FROM service."Symbol") AS symbols_all`,
      [syncIds[0], JSON.stringify(syncIds[0])],
    )
  ).rows[0]!;
  console.log(`data: one sync ${JSON.stringify(counts)}; ${syncIds.length} completed syncs used`);

  // Sample files: the ones with the most symbols (the heavy node details), plus random ones.
  const heavy = (
    await pool.query<{ file_path: string }>(
      `SELECT f.file_path FROM file_records f WHERE f.sync_id = $1 AND f.language = 'go'
        ORDER BY f.size_bytes DESC LIMIT 10`,
      [syncIds[0]],
    )
  ).rows.map((r) => r.file_path);
  const random = (
    await pool.query<{ file_path: string }>(
      `SELECT file_path FROM file_records WHERE sync_id = $1 ORDER BY md5(file_path) LIMIT 90`,
      [syncIds[0]],
    )
  ).rows.map((r) => r.file_path);
  const paths = [...heavy, ...random];
  const nodeId = (p: string) => encodeURIComponent(`src_${sourceId}:${p}`).replaceAll('%2F', '/');

  const rows: string[] = [];
  /** One request: time to the last byte on the wire (the body is counted, not decoded) and the bytes received. */
  const once = (path: string, acceptEncoding: string) =>
    new Promise<{ ms: number; bytes: number; status: number }>((resolve, reject) => {
      const t = performance.now();
      http
        .get(graphUrl + path, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
          let bytes = 0;
          res.on('data', (b: Buffer) => (bytes += b.length));
          res.on('end', () => resolve({ ms: performance.now() - t, bytes, status: res.statusCode ?? 0 }));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  const bench = async (label: string, urls: string[], acceptEncoding = 'br') => {
    for (let i = 0; i < 3; i++) await once(urls[i % urls.length]!, acceptEncoding);
    const ms: number[] = [];
    let bytes = 0;
    for (let i = 0; i < N; i++) {
      const r = await once(urls[i % urls.length]!, acceptEncoding);
      if (r.status !== 200) throw new Error(`${urls[i % urls.length]}: ${r.status}`);
      ms.push(r.ms);
      bytes = Math.max(bytes, r.bytes);
    }
    rows.push(
      `${`${label} [${acceptEncoding}]`.padEnd(52)} p50 ${pct(ms, 50).toFixed(1).padStart(7)} ms  p95 ${pct(ms, 95).toFixed(1).padStart(7)} ms  p99 ${pct(ms, 99).toFixed(1).padStart(7)} ms  (max ${(bytes / 1024).toFixed(0)} KiB on the wire)`,
    );
    console.log(rows.at(-1));
  };
  const load = loadavg()[0]!;
  await bench(
    'node detail (latest)',
    paths.map((p) => `/api/graph/nodes/${nodeId(p)}`),
  );
  await bench(
    'node detail (sync_id)',
    paths.map((p) => `/api/graph/nodes/${nodeId(p)}?sync_id=${syncIds[0]}`),
  );
  await bench('merged graph, 1 sync', [`/api/graph?sync_ids=${syncIds[0]}`]);
  await bench('merged graph, 1 sync', [`/api/graph?sync_ids=${syncIds[0]}`], 'identity');
  if (syncIds.length >= 3)
    await bench('merged graph, 3 syncs', [`/api/graph?sync_ids=${syncIds.slice(0, 3).join(',')}`]);
  await bench(
    'node file (latest)',
    paths.map((p) => `/api/graph/nodes/${nodeId(p)}/file`),
  );
  await bench('stats', ['/api/graph/stats']);
  await bench('search (incl. the embedding call)', [
    '/api/graph/search?q=parse%20http%20request',
    '/api/graph/search?q=gzip%20reader',
  ]);
  await bench('sources', ['/api/sources']);
  await bench('syncs of the source', [`/api/syncs?source_id=${sourceId}`]);
  console.log(`\nsummary (load average ${load.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}, ${N} requests each)`);
  for (const r of rows) console.log('  ' + r);

  if (process.env.BENCH_PLANS !== '0') {
    const c = await pool.connect();
    const plan = async (title: string, sql: string, params: unknown[]) => {
      const r = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING ON) ${sql}`, params);
      console.log(`\n-- ${title}\n` + r.rows.map((x) => x['QUERY PLAN']).join('\n'));
    };
    await plan(`node detail (latest): ${heavy[0]}`, nodeDetailSql.latest, [sourceId, heavy[0]]);
    await plan(`node detail (sync_id): ${heavy[0]}`, nodeDetailSql.inSync, [sourceId, heavy[0], syncIds[0]]);
    await plan(`node file (latest): ${heavy[0]}`, nodeTextSql.latest, [sourceId, heavy[0]]);
    c.release();
  }
  await pool.end();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
