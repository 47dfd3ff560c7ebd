/**
 * Incremental re-sync, end to end through the API (issue 12's targets): for each corpus, a git copy in a temporary
 * folder is registered as a source through the gateway, then synced
 *   1. full (the first sync; embeddings on, the stack's embedding endpoint — the model-host stand-in by default),
 *   2. again without any change,
 *   3. after a commit that changes one file,
 *   4. full again with `config_overrides: { incremental: false }` at the same commit (the comparison, same run),
 * each timed from POST /api/syncs to the moment GET /api/syncs/{id} says completed (polled every 25 ms). It prints
 * wall times, the phases the worker reports, the reuse counts, and the disk the database grew by per sync
 * (pg_database_size before and after; the row, index, graph and vector growth of one sync of an unchanged tree).
 * Beside each wall time, CPU seconds (the machine is shared; wall time moves with the load): the stack's worker
 * process with the git processes it ran (.stack/run/worker.pid), and the database backends (sampled while the
 * sync runs), and the step ledger's timeline (sync_steps.done_at from the run's start).
 *
 * Needs the stack up (`bash scripts/stack.sh up`): reads .stack/env and the gateway's client secret.
 *
 *   node --import tsx bench/incremental.ts [python] [go]        (default: both)
 *   BENCH_QUIET=1 node --import tsx bench/incremental.ts ...    (each sync waits for a quiet machine)
 *
 * Corpora: CPython's standard library of the machine's python3 (every file but site-packages and __pycache__) and
 * $(go env GOROOT)/src, copied into git repositories under the temp folder at run time (never committed here).
 */
import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CHANGED_FILE, CORPORA, corpusRepo, git } from './support/corpus.ts';
import { api, gateway, root, stackPool, syncThroughGateway, type GatewayRun } from './support/gateway.ts';
import { settle } from './support/quiet.ts';

const pool = stackPool();

type Run = GatewayRun;

/** utime + stime of a process and of its waited-for children (git), in seconds. */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return 0;
  }
}

const workerPid = Number(readFileSync(join(root, '.stack/run/worker.pid'), 'utf8').trim());

async function backends(): Promise<Map<number, number>> {
  const r = await pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  return new Map(r.rows.map((x) => [x.pid, cpuOf(x.pid)]));
}

/** CPU of the worker and of the database backends from now until the returned function is called. */
async function cpuMeter(): Promise<() => Promise<{ worker: number; db: number }>> {
  const w0 = cpuOf(workerPid);
  const b0 = await backends();
  const last = new Map<number, number>();
  const sample = async () => {
    for (const [pid, c] of await backends()) last.set(pid, c);
  };
  const timer = setInterval(() => void sample().catch(() => undefined), 250);
  return async () => {
    clearInterval(timer);
    await sample();
    let db = 0;
    for (const [pid, c] of last) db += c - (b0.get(pid) ?? 0);
    return { worker: cpuOf(workerPid) - w0, db };
  };
}

async function timeline(syncId: string): Promise<string> {
  const r = await pool.query<{ step: string; ms: number }>(
    `SELECT s.step, (extract(epoch FROM s.done_at - r.started_at) * 1000)::int AS ms
       FROM sync_steps s JOIN sync_runs r ON r.id = s.sync_id WHERE s.sync_id = $1 ORDER BY s.done_at`,
    [syncId],
  );
  return r.rows.map((x) => `${x.step} +${x.ms}`).join(', ');
}

async function dbSize(): Promise<number> {
  return Number((await pool.query<{ n: string }>(`SELECT pg_database_size(current_database()) AS n`)).rows[0]!.n);
}

async function timedSync(
  sourceId: string,
  overrides?: Record<string, unknown>,
): Promise<{ ms: number; run: Run; cpu: { worker: number; db: number }; steps: string }> {
  const meter = await cpuMeter();
  const { ms, run } = await syncThroughGateway(sourceId, overrides);
  return { ms, run, cpu: await meter(), steps: await timeline(run.id) };
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function line(
  label: string,
  r: { ms: number; run: Run; cpu: { worker: number; db: number }; steps: string },
  disk?: number,
): string {
  const d = r.run.stats.durations_ms ?? {};
  const inc = r.run.stats.incremental ?? {};
  const phases = ['cloning', 'parsing', 'graphing', 'embedding_summaries', 'embedding_chunks', 'finalizing']
    .map((p) => `${p.replace('embedding_', 'emb_')} ${d[p] ?? '-'}`)
    .join(', ');
  return (
    `  ${label.padEnd(22)} ${(r.ms / 1000).toFixed(2).padStart(6)} s  (worker total ${d.total ?? '-'} ms: ${phases})\n` +
    `  ${''.padEnd(22)} reused ${inc.reused ?? '-'}, changed ${inc.changed ?? '-'}, added ${inc.added ?? '-'}, ` +
    `removed ${inc.removed ?? '-'}; files ${r.run.stats.files}, chunks ${r.run.stats.chunks}` +
    (disk !== undefined ? `; database grew ${(disk / 1048576).toFixed(1)} MB` : '') +
    `; load ${load()}\n` +
    `  ${''.padEnd(22)} CPU: worker (with git) ${r.cpu.worker.toFixed(2)} s, database ${r.cpu.db.toFixed(2)} s\n` +
    `  ${''.padEnd(22)} steps: ${r.steps}`
  );
}

/** BENCH_QUIET=1: each timed sync starts on a quiet machine (support/quiet.ts), or after five minutes, saying so. */
const quiet = process.env.BENCH_QUIET === '1';

async function bench(name: 'python' | 'go', change: string): Promise<string> {
  const corpus = CORPORA[name]();
  const repo = corpusRepo(`ckg-bench-incr-${name}`, corpus);
  const files = git(repo, 'ls-files').split('\n').length - 1;
  const out: string[] = [`${name}: ${files} files (${corpus.src})`];
  console.log(out[0]);
  try {
    const source = await api<{ id: string }>('POST', '/api/sources', {
      owner: 'bench',
      name: `${name}-${Date.now()}`,
      url: repo,
      default_branch: 'main',
    });
    let size = await dbSize();
    const step = async (label: string, overrides?: Record<string, unknown>) => {
      const noisy = quiet ? await settle(pool) : null;
      if (noisy) console.log(`  (${label}: ${noisy})`);
      const r = await timedSync(source.id, overrides);
      const now = await dbSize();
      const l = line(label, r, now - size);
      size = now;
      console.log(l);
      out.push(l);
    };
    await step('first (full)');
    await step('no change');
    await step('no change (again)');
    const path = join(repo, change);
    appendFileSync(
      path,
      name === 'go' ? '\n// changed by bench/incremental.ts\n' : '\n# changed by bench/incremental.ts\n',
    );
    git(repo, 'commit', '-q', '-am', 'one file changed');
    await step('one file changed');
    await step('full, same commit', { incremental: false });
    await api('DELETE', `/api/sources/${source.id}`).catch(() => undefined);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
  return out.join('\n');
}

const which = process.argv.slice(2);
const want = (n: string) => which.length === 0 || which.includes(n);
const report: string[] = [
  `incremental re-sync through ${gateway}, ${new Date().toISOString()}, load at start ${load()}`,
];
if (want('python')) report.push(await bench('python', CHANGED_FILE.python));
if (want('go')) report.push(await bench('go', CHANGED_FILE.go));
console.log('\n' + report.join('\n'));
await pool.end();
