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
 *   BENCH_QUIET=1 node --import tsx bench/incremental.ts ...    (each sync waits for a quiet machine: settle())
 *
 * Corpora: CPython's standard library of the machine's python3 (every file but site-packages and __pycache__) and
 * $(go env GOROOT)/src, copied into git repositories under the temp folder at run time (never committed here).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { clientCredentialsToken, type BenchToken } from './support/token.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const stackEnv = Object.fromEntries(
  readFileSync(join(root, '.stack/env'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
) as Record<string, string>;
const env = (k: string, d: string) => process.env[k] ?? stackEnv[k] ?? d;
const gateway = env('GATEWAY_URL', 'http://127.0.0.1:8080');
const idp = env('KEYCLOAK_URL', 'http://127.0.0.1:8180');
const realm = env('KEYCLOAK_REALM', 'service');
const pool = new pg.Pool({
  connectionString: env('DATABASE_URL', 'postgresql://postgres@127.0.0.1:55432/ckg'),
  max: 2,
});

let token: BenchToken | undefined;
async function auth(): Promise<Record<string, string>> {
  if (!token || token.exp - Date.now() < 30_000) {
    token = await clientCredentialsToken(`${idp}/realms/${realm}/protocol/openid-connect/token`, join(root, '.stack'));
  }
  return { authorization: `Bearer ${token.token}`, 'content-type': 'application/json' };
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: await auth(),
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'bench',
      GIT_AUTHOR_EMAIL: 'b@x',
      GIT_COMMITTER_NAME: 'bench',
      GIT_COMMITTER_EMAIL: 'b@x',
    },
  });
}

function repoOf(name: string, src: string, skip: (p: string) => boolean): string {
  const dir = mkdtempSync(join(tmpdir(), `ckg-bench-incr-${name}-`));
  cpSync(src, dir, { recursive: true, verbatimSymlinks: true, filter: (p) => !skip(p) });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A', '-f');
  git(dir, 'commit', '-q', '-m', 'snapshot');
  return dir;
}

interface Run {
  id: string;
  status: string;
  stats: {
    files?: number;
    chunks?: number;
    incremental?: Record<string, number | string | boolean | null>;
    durations_ms?: Record<string, number>;
    embeddings?: Record<string, unknown>;
  };
}

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
  const t = performance.now();
  const created = await api<Run>('POST', '/api/syncs', {
    source_id: sourceId,
    triggered_by: 'bench',
    ...(overrides ? { config_overrides: overrides } : {}),
  });
  for (;;) {
    // A refused or reset poll (a busy machine) is polled again.
    const run = await api<Run>('GET', `/api/syncs/${created.id}`).catch(() => null);
    if (!run) {
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    if (['completed', 'failed', 'cancelled'].includes(run.status)) {
      const ms = performance.now() - t;
      if (run.status !== 'completed') throw new Error(`sync ${run.id} ended ${run.status}`);
      return { ms, run, cpu: await meter(), steps: await timeline(run.id) };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
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

/**
 * BENCH_QUIET=1: each timed sync starts once the machine is quiet — no autovacuum worker runs (every sync inserts
 * ~10^5 graph rows, so the insert-driven vacuum of the label tables follows it) and the CPUs were at least 90 % idle
 * over the last two seconds (/proc/stat; the load average lags by minutes) — or after five minutes, saying so. The
 * figures then compare with the "quiet machine".
 */
const quiet = process.env.BENCH_QUIET === '1';
function cpuTimes(): { idle: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: f[3]! + f[4]!, total: f.reduce((a, b) => a + b, 0) };
}
async function settle(label: string): Promise<void> {
  const t = performance.now();
  for (;;) {
    const a = cpuTimes();
    await new Promise((res) => setTimeout(res, 2000));
    const b = cpuTimes();
    const idle = (b.idle - a.idle) / Math.max(1, b.total - a.total);
    const r = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`,
    );
    if (r.rows[0]!.n === 0 && idle >= 0.9) return;
    if (performance.now() - t > 300_000) {
      console.log(
        `  (${label}: not quiet after 5 minutes: idle ${(idle * 100).toFixed(0)} %, autovacuum workers ${r.rows[0]!.n})`,
      );
      return;
    }
  }
}

async function bench(name: string, src: string, skip: (p: string) => boolean, change: string): Promise<string> {
  const repo = repoOf(name, src, skip);
  const files = git(repo, 'ls-files').split('\n').length - 1;
  const out: string[] = [`${name}: ${files} files (${src})`];
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
      if (quiet) await settle(label);
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
if (want('python')) {
  const stdlib = execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], {
    encoding: 'utf8',
  }).trim();
  if (!existsSync(stdlib)) throw new Error(`no CPython standard library at ${stdlib}`);
  report.push(
    await bench(
      'python',
      stdlib,
      (p) => /\/(site-packages|__pycache__|config-[^/]*)(\/|$)/.test(p) || p.endsWith('.pyc'),
      'json/decoder.py',
    ),
  );
}
if (want('go')) {
  const goroot = execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim();
  report.push(await bench('go', join(goroot, 'src'), () => false, 'strings/strings.go'));
}
console.log('\n' + report.join('\n'));
await pool.end();
