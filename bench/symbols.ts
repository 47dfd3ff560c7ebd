/**
 * The symbol graph on the Go standard library (issue 28's targets): a full sync and no-change re-syncs through the
 * gateway (wall time, the resolveSymbols step from the workflow's history), the storage each unchanged re-sync adds
 * (per relation, and the database as a whole), and the reads: symbol detail and symbol impact (depth 3) p50/p95 over
 * symbols that have callers, straight at the graph component and through the gateway.
 *
 *   node --import tsx bench/symbols.ts [--resyncs N] [--reads N] [--no-full] [--ab N [--ab-first with|without]]
 *
 * --ab N: before anything else, N rounds of two full syncs (`incremental: false`) of the same tree, one by a second
 * source whose config says `symbol_graph: false` (docs/pipeline.md) and one by the source with the symbol graph, in
 * the order --ab-first says (default: without first): wall time, the sync worker's CPU seconds over the sync (its
 * process, parse threads included, from /proc; .stack/run/worker.pid; per thread as well), PostgreSQL's CPU seconds
 * and the steps, with the ratios of the round.
 *
 * Needs the local stack (scripts/stack.sh up). Embeddings and the precise tier are off for every sync
 * (config_overrides), so the figures are the graph's. The source stays registered (.stack/bench-symbols.json); --no-full re-syncs it without the full
 * sync first.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { CORPORA, corpusRepo } from './support/corpus.ts';
import { api, auth, env, root, stackPool, syncThroughGateway } from './support/gateway.ts';

const { values: args } = parseArgs({
  options: {
    resyncs: { type: 'string', default: '3' },
    reads: { type: 'string', default: '200' },
    'no-full': { type: 'boolean', default: false },
    ab: { type: 'string', default: '0' },
    'ab-first': { type: 'string', default: 'without' },
  },
});

const pool = stackPool();
const statePath = join(root, '.stack/bench-symbols.json');
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

type State = { go?: string; goWithout?: string };
const readState = (): State => (existsSync(statePath) ? JSON.parse(readFileSync(statePath, 'utf8')) : {}) as State;
const known = async (id: string | undefined) =>
  id !== undefined && (await api<{ id: string }>('GET', `/api/sources/${id}`).catch(() => null)) !== null;

async function source(): Promise<string> {
  const state = readState();
  if (await known(state.go)) return state.go!;
  const dir = corpusRepo('ckg-bench-symbols-go', CORPORA.go());
  const s = await api<{ id: string }>('POST', '/api/sources', {
    owner: 'bench',
    name: 'symbols-go',
    url: dir,
    default_branch: 'main',
  });
  writeFileSync(statePath, JSON.stringify({ go: s.id }));
  return s.id;
}

/** A second source on the same repository whose syncs leave out the symbol graph (`symbol_graph: false`). */
async function sourceWithout(withGraph: string): Promise<string> {
  const state = readState();
  if (await known(state.goWithout)) return state.goWithout!;
  const url = (await pool.query<{ url: string }>(`SELECT url FROM sources WHERE id = $1`, [withGraph])).rows[0]!.url;
  const s = await api<{ id: string }>('POST', '/api/sources', {
    owner: 'bench',
    name: 'symbols-go-without-graph',
    url,
    default_branch: 'main',
    config: { symbol_graph: false },
  });
  writeFileSync(statePath, JSON.stringify({ ...state, goWithout: s.id }));
  return s.id;
}

/** CPU seconds (user + system) of a /proc stat file. */
function statCpu(path: string): number {
  const text = readFileSync(path, 'utf8');
  const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime), counted from the state field (3): indexes 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const workerPid = () => readFileSync(join(root, '.stack/run/worker.pid'), 'utf8').trim();

/** The worker's CPU seconds so far per live thread (by thread id), and in all (threads that exited included). */
function workerThreads(): { total: number; threads: Map<string, number> } {
  const pid = workerPid();
  const threads = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.set(tid, statCpu(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // The thread exited meanwhile: its time is in the total.
    }
  }
  return { total: statCpu(`/proc/${pid}/stat`), threads };
}

/**
 * CPU seconds the stack's PostgreSQL has used so far: the postmaster, its live children (backends, writers) and the
 * children it has reaped (stat fields cutime, cstime).
 */
function postgresCpu(): number {
  const pid = readFileSync(join(root, '.stack/pg/data/postmaster.pid'), 'utf8').split('\n')[0]!.trim();
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(') ') + 2).split(' ');
  let cpu = (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')) {
    if (child === '') continue;
    try {
      cpu += statCpu(`/proc/${child}/stat`);
    } catch {
      // Exited meanwhile: reaped, its time moves into cutime (at most a few ms lost).
    }
  }
  return cpu;
}

/**
 * The worker's CPU seconds between two samples per thread: the main thread, the busiest other threads (the parse
 * threads, the collector's helpers, the resolver thread while it lives) and what threads that exited used.
 */
function threadSplit(a: ReturnType<typeof workerThreads>, b: ReturnType<typeof workerThreads>): string {
  const pid = workerPid();
  const rows: Array<[string, number]> = [];
  let live = 0;
  for (const [tid, cpu] of b.threads) {
    const d = cpu - (a.threads.get(tid) ?? 0);
    live += d;
    if (d >= 0.05) rows.push([tid === pid ? 'main' : tid, d]);
  }
  rows.sort((x, y) => y[1] - x[1]);
  const exited = b.total - a.total - live;
  return [...rows.slice(0, 10), ['exited', exited] as [string, number]]
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(', ');
}

/** Full syncs with and without the symbol graph, alternating; ratios per round. */
async function abRounds(withGraph: string, rounds: number): Promise<void> {
  const without = await sourceWithout(withGraph);
  const order: Array<['with' | 'without', string]> =
    args['ab-first'] === 'with'
      ? [
          ['with', withGraph],
          ['without', without],
        ]
      : [
          ['without', without],
          ['with', withGraph],
        ];
  for (let round = 1; round <= rounds; round++) {
    const got: Record<string, { ms: number; cpu: number }> = {};
    for (const [label, id] of order) {
      const t0 = workerThreads();
      const pg0 = postgresCpu();
      const r = await syncThroughGateway(id, { embeddings: false, precise: false, incremental: false });
      const t1 = workerThreads();
      const pg = postgresCpu() - pg0;
      const cpu = t1.total - t0.total;
      got[label] = { ms: r.ms, cpu };
      console.log(
        `A/B round ${round}, full sync ${label} the symbol graph: ${(r.ms / 1000).toFixed(1)} s wall, ` +
          `worker ${cpu.toFixed(1)} CPU-s (per thread: ${threadSplit(t0, t1)}), PostgreSQL ${pg.toFixed(1)} CPU-s; ` +
          `steps ${JSON.stringify(await stepTimes(id))}; load ${load()}`,
      );
    }
    console.log(
      `A/B round ${round}: with / without = ${(got.with!.ms / got.without!.ms).toFixed(3)} wall, ` +
        `${(got.with!.cpu / got.without!.cpu).toFixed(3)} worker CPU`,
    );
  }
}

const RELATIONS = [
  'service."File"',
  'service."Symbol"',
  'service.depends_on',
  'service.defines',
  'service.calls',
  'service.inherits',
  'service.implements',
  'service.overrides',
  'service."references"',
  'sync_files',
  'sync_steps',
  'sync_symbol_unresolved',
  'symbol_unresolved_sets',
  'symbol_facts',
  'file_contents',
  'file_content_symbols',
];
const SYMBOL_GRAPH = new Set([
  'service.calls',
  'service.inherits',
  'service.implements',
  'service.overrides',
  'service."references"',
  'sync_symbol_unresolved',
  'symbol_unresolved_sets',
  'symbol_facts',
]);

/** Bytes per relation (heap + indexes + TOAST) and of the database, after a VACUUM so dead rows do not count. */
async function sizes(): Promise<Map<string, number>> {
  for (const r of RELATIONS) await pool.query(`VACUUM ${r}`);
  const out = new Map<string, number>();
  for (const r of RELATIONS) {
    const q = await pool.query<{ n: string }>(`SELECT pg_total_relation_size($1::regclass) AS n`, [r]);
    out.set(r, Number(q.rows[0]!.n));
  }
  const db = await pool.query<{ n: string }>(`SELECT pg_database_size(current_database()) AS n`);
  out.set('(database)', Number(db.rows[0]!.n));
  return out;
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;

/** Start-to-close of the workflow's resolveSymbols and resolveDependencies activities of the run's history. */
async function stepTimes(sourceId: string): Promise<Record<string, number>> {
  const connection = await Connection.connect({ address: env('TEMPORAL_ADDRESS', '127.0.0.1:7233') });
  try {
    const client = new Client({ connection, namespace: env('TEMPORAL_NAMESPACE', 'default') });
    const history = await client.workflow.getHandle(sourceId).fetchHistory();
    const scheduled = new Map<string, string>();
    const started = new Map<string, number>();
    const out: Record<string, number> = {};
    for (const e of history.events ?? []) {
      const id = String(e.eventId);
      const ms = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.round((e.eventTime?.nanos ?? 0) / 1e6);
      if (e.activityTaskScheduledEventAttributes) {
        scheduled.set(id, e.activityTaskScheduledEventAttributes.activityType?.name ?? '?');
      } else if (e.activityTaskStartedEventAttributes) {
        started.set(String(e.activityTaskStartedEventAttributes.scheduledEventId), ms);
      } else if (e.activityTaskCompletedEventAttributes) {
        const sid = String(e.activityTaskCompletedEventAttributes.scheduledEventId);
        const name = scheduled.get(sid) ?? '?';
        const t0 = started.get(sid);
        if (
          t0 !== undefined &&
          (name === 'resolveSymbols' ||
            name === 'resolveDependencies' ||
            name === 'writeBatch' ||
            name === 'parseBatch')
        ) {
          out[name] = (out[name] ?? 0) + (ms - t0);
        }
      }
    }
    return out;
  } finally {
    await connection.close();
  }
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { headers });
  await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t;
}

async function main(): Promise<void> {
  const sourceId = await source();
  const off = { embeddings: false, precise: false };
  console.log(`source ${sourceId}; load ${load()}`);
  if (Number(args.ab) > 0) await abRounds(sourceId, Number(args.ab));
  if (!args['no-full']) {
    const full = await syncThroughGateway(sourceId, { ...off, incremental: false });
    const stats = full.run.stats as { edges: Record<string, number>; symbol_uses?: Record<string, number> };
    console.log(
      `full sync: ${(full.ms / 1000).toFixed(1)} s; steps ${JSON.stringify(await stepTimes(sourceId))}; ` +
        `edges ${JSON.stringify(stats.edges)}; uses ${JSON.stringify(stats.symbol_uses)}; load ${load()}`,
    );
  }
  for (let i = 0; i < Number(args.resyncs); i++) {
    const before = await sizes();
    const r = await syncThroughGateway(sourceId, off);
    const after = await sizes();
    const delta = (k: string) => (after.get(k) ?? 0) - (before.get(k) ?? 0);
    const symbolPart = [...SYMBOL_GRAPH].reduce((a, k) => a + delta(k), 0);
    console.log(
      `no-change re-sync ${i + 1}: ${(r.ms / 1000).toFixed(2)} s; steps ${JSON.stringify(await stepTimes(sourceId))}; ` +
        `storage added: database ${mb(delta('(database)'))}, symbol graph ${mb(symbolPart)} ` +
        `(${[...SYMBOL_GRAPH].map((k) => `${k} ${mb(delta(k))}`).join(', ')}); ` +
        `others: ${RELATIONS.filter((k) => !SYMBOL_GRAPH.has(k))
          .map((k) => `${k} ${mb(delta(k))}`)
          .join(', ')}; load ${load()}`,
    );
  }

  // Reads: symbols of the newest sync with at least one caller, read through that sync (shared graph or its own).
  const sync = await pool.query<{ id: string }>(
    `SELECT id FROM sync_runs WHERE source_id = $1 AND status = 'completed' ORDER BY created_at DESC LIMIT 1`,
    [sourceId],
  );
  const syncId = sync.rows[0]!.id;
  // An unchanged re-sync shares its predecessor's graph (docs/decisions.md): the picks come from the rows it reads.
  const graphSync = await pool.query<{ id: string }>(`SELECT graph_sync_of($1) AS id`, [syncId]);
  const graphSyncId = graphSync.rows[0]!.id;
  // AGE's operators (graphid =, agtype ->>) live in ag_catalog: a connection of its own with it on the search path.
  const client = await pool.connect();
  await client.query(`SET search_path = ag_catalog, "$user", public`);
  const picks = await client.query<{ path: string; key: string }>(
    `WITH f AS (
       SELECT id, properties ->> '"file_path"'::ag_catalog.agtype AS path FROM service."File"
        WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = $1::text::ag_catalog.agtype
     )
     SELECT f.path, s.properties ->> '"key"'::ag_catalog.agtype AS key
       FROM f JOIN service.defines d ON d.start_id = f.id JOIN service."Symbol" s ON s.id = d.end_id
      WHERE EXISTS (SELECT 1 FROM service.calls c WHERE c.end_id = s.id)
      ORDER BY md5(s.id::text) LIMIT $2`,
    [JSON.stringify(graphSyncId), Number(args.reads)],
  );
  await client.query(`RESET search_path`);
  client.release();
  if (picks.rows.length === 0) {
    console.log('no symbol with callers in the newest sync: nothing to read');
    return;
  }
  const graph = env('GRAPH_URL', `http://127.0.0.1:${env('CKG_GRAPH_PORT', '8082')}`);
  const gw = env('GATEWAY_URL', 'http://127.0.0.1:8080');
  const authHeaders = { authorization: (await auth()).authorization! };
  const address = (r: { path: string; key: string }) => encodeURIComponent(`src_${sourceId}:${r.path}#${r.key}`);
  const cold = await timed(`${graph}/api/graph/symbol?symbol=${address(picks.rows[0]!)}&sync_id=${syncId}`, {});
  console.log(`first read of the sync (loads its symbol graph): ${cold.toFixed(0)} ms; load ${load()}`);
  for (const [label, base, headers] of [
    ['graph component', graph, {}],
    ['through the gateway', gw, authHeaders],
  ] as const) {
    const detail: number[] = [];
    const impact: number[] = [];
    const callees: number[] = [];
    for (const r of picks.rows) {
      detail.push(await timed(`${base}/api/graph/symbol?symbol=${address(r)}&sync_id=${syncId}`, headers));
      impact.push(
        await timed(`${base}/api/graph/symbol/impact?symbol=${address(r)}&sync_id=${syncId}&depth=3`, headers),
      );
      callees.push(
        await timed(
          `${base}/api/graph/symbol/impact?symbol=${address(r)}&sync_id=${syncId}&depth=3&direction=callees`,
          headers,
        ),
      );
    }
    const f = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(2)} / p95 ${percentile(xs, 95).toFixed(2)} ms`;
    console.log(
      `${label}, ${picks.rows.length} symbols: detail ${f(detail)}; impact callers depth 3 ${f(impact)}; ` +
        `callees depth 3 ${f(callees)}; load ${load()}`,
    );
  }
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => void pool.end());
