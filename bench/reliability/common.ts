/**
 * Shared pieces of the load and fault harness (bench/reliability.ts): the stack's addresses (from .stack/env and the
 * CKG_* ports), timed HTTP with a hang cap, a corpus repository made at run time, sources, syncs and their counts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPool } from '../../lib/db.ts';
import { clientCredentialsToken } from '../support/token.ts';
import { stackEnv } from '../support/gateway.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export const URLS = {
  graph: `http://127.0.0.1:${port('CKG_GRAPH_PORT', 8082)}`,
  ingestion: `http://127.0.0.1:${port('CKG_INGESTION_PORT', 8081)}`,
  gateway: stackEnv.GATEWAY_URL ?? `http://127.0.0.1:${port('CKG_GATEWAY_PORT', 8080)}`,
  chat: `http://127.0.0.1:${port('CKG_CHAT_PORT', 8102)}`,
  database: process.env.DATABASE_URL ?? stackEnv.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:55432/ckg',
};

/**
 * Freezes of this process (the machine's owner may SIGSTOP every low-priority process for minutes to measure on a
 * quiet machine; the stack's processes are frozen with it). A tick that comes more than 2 s late marks one. Bounds
 * and hang caps of the harness count only the time outside freezes.
 */
const freezes: Array<[start: number, end: number]> = [];
let lastTick = Date.now();
setInterval(() => {
  const now = Date.now();
  if (now - lastTick > 2000) freezes.push([lastTick, now]);
  lastTick = now;
}, 100).unref();

/** Milliseconds of [from, to] the process spent frozen. */
export function frozenWithin(from: number, to: number): number {
  let ms = 0;
  for (const [a, b] of freezes) ms += Math.max(0, Math.min(b, to) - Math.max(a, from));
  return ms;
}

/** Every request of the harness gives up after this long and counts as a hang. */
export const HANG_MS = 30_000;

export interface Reply {
  status: number;
  ms: number;
  body: unknown;
  hung: boolean;
  /** A connection-level failure (refused, reset), status 0. */
  failed?: string;
  /** The harness was frozen (SIGSTOP) during the request: its time says nothing. */
  frozen?: boolean;
  headers?: Headers;
}

export async function http(
  method: string,
  url: string,
  body?: unknown,
  opts: { raw?: boolean; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Reply> {
  const started = performance.now();
  const wallStart = Date.now();
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), opts.timeoutMs ?? HANG_MS);
  try {
    const res = await fetch(url, {
      method,
      signal: ac.signal,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...opts.headers,
      },
      body: body === undefined ? undefined : opts.raw ? (body as string | Buffer) : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON
    }
    return {
      status: res.status,
      ms: performance.now() - started,
      body: parsed,
      hung: false,
      headers: res.headers,
      frozen: frozenWithin(wallStart, Date.now()) > 0,
    };
  } catch (err) {
    // A request cut by its timer while the process was frozen did not hang: it was not given its time.
    const hung = ac.signal.aborted && frozenWithin(wallStart, Date.now()) === 0;
    return {
      status: 0,
      ms: performance.now() - started,
      body: undefined,
      hung,
      failed: hung ? 'timeout' : String((err as Error).cause ?? err),
      frozen: frozenWithin(wallStart, Date.now()) > 0,
    };
  } finally {
    clearTimeout(timer);
  }
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

export const fmt = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : 'n/a');

export { sleep };

/** The 1, 5 and 15 minute load averages, for every figure (the machine is shared). */
export const loadNow = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

export function log(line: string): void {
  process.stdout.write(`[reliability] ${line}\n`);
}

/** A git repository of this project's TypeScript and Markdown (first `files` of them), in a temp folder. */
export function makeCorpus(files: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'ckg-reliability-corpus-'));
  const picked: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (picked.length >= files) return;
      if (name === 'node_modules' || name.startsWith('.') || name === 'test') continue;
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(ts|md)$/.test(name)) picked.push(relative(ROOT, full));
    }
  };
  walk(ROOT);
  for (const f of picked) cpSync(join(ROOT, f), join(dir, f));
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'corpus');
  return dir;
}

export const db = createPool(URLS.database, { max: 4, applicationName: 'ckg-bench-reliability' });

export async function createSource(name: string, url: string): Promise<string> {
  const r = await http('POST', `${URLS.graph}/api/sources`, { owner: 'reliability', name, url });
  if (r.status !== 200 && r.status !== 201)
    throw new Error(`create source ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body as { id: string }).id;
}

/** Starts a sync; retries 409/503 for a while (a previous run may be ending). */
export async function startSync(sourceId: string): Promise<string> {
  for (let i = 0; ; i++) {
    const r = await http('POST', `${URLS.ingestion}/api/syncs`, { source_id: sourceId, triggered_by: 'reliability' });
    if (r.status === 201) return (r.body as { id: string }).id;
    if (i > 60) throw new Error(`start sync: ${r.status} ${JSON.stringify(r.body)}`);
    await sleep(1000);
  }
}

export interface RunEnd {
  status: string;
  error: string | null;
  ms: number;
}

/** Waits until the run leaves pending/running (or `boundMs` passes: status `stuck`). Survives a database restart. */
export async function waitEnd(syncId: string, boundMs: number): Promise<RunEnd> {
  const started = Date.now();
  for (;;) {
    try {
      const r = await db.query<{ status: string; error: string | null }>(
        `SELECT status, error FROM sync_runs WHERE id = $1`,
        [syncId],
      );
      const row = r.rows[0];
      if (!row) return { status: 'gone', error: null, ms: Date.now() - started };
      if (row.status !== 'pending' && row.status !== 'running')
        return { ...row, ms: Date.now() - started - frozenWithin(started, Date.now()) };
    } catch {
      // the database is restarting
    }
    if (Date.now() - started - frozenWithin(started, Date.now()) > boundMs)
      return { status: 'stuck', error: null, ms: Date.now() - started };
    await sleep(500);
  }
}

export async function waitStatus(syncId: string, status: string, boundMs: number): Promise<boolean> {
  const started = Date.now();
  while (Date.now() - started < boundMs) {
    const r = await db.query<{ status: string }>(`SELECT status FROM sync_runs WHERE id = $1`, [syncId]);
    if (r.rows[0]?.status === status) return true;
    await sleep(200);
  }
  return false;
}

/** Rows, vertices and edges of one run. */
export async function runCounts(syncId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const q = async (name: string, sql: string, params: unknown[]) => {
    out[name] = Number((await db.query<{ n: string }>(sql, params)).rows[0]!.n);
  };
  await q('files', `SELECT count(*) AS n FROM file_records WHERE sync_id = $1`, [syncId]);
  await q(
    'chunks',
    `SELECT count(*) AS n FROM content_chunks c JOIN file_records f ON f.id = c.file_id WHERE f.sync_id = $1`,
    [syncId],
  );
  for (const label of ['"File"', '"Symbol"', 'depends_on', 'defines']) {
    await q(
      label.replaceAll('"', ''),
      `SELECT count(*) AS n FROM service.${label}
        WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = $1::text::ag_catalog.agtype`,
      [JSON.stringify(syncId)],
    );
  }
  return out;
}

/** Sources with an active run older than `olderMs` (blocked ones, if their run never ends). */
export async function blockedSources(olderMs: number): Promise<number> {
  const r = await db.query<{ n: string }>(
    `SELECT count(DISTINCT source_id) AS n FROM sync_runs
      WHERE status IN ('pending', 'running') AND created_at < now() - make_interval(secs => $1::double precision / 1000)`,
    [olderMs],
  );
  return Number(r.rows[0]!.n);
}

export function pidOf(service: string): number | undefined {
  try {
    return Number(readFileSync(join(ROOT, `.stack/run/${service}.pid`), 'utf8').trim());
  } catch {
    return undefined;
  }
}

/** kill -9 of a stack service (its process group: tsx and node). */
export function kill9(service: string): void {
  const pid = pidOf(service);
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * `scripts/stack.sh <command>` (`services`: start whatever is down; `processes`: only the service processes), with
 * 300 s for a process to become ready (the worker bundles its workflows at start: slow on a loaded machine). On a
 * failure the command runs again, up to three times (it waits for a process still starting, never starts a second).
 */
export function stack(command: string): void {
  for (let i = 1; ; i++) {
    const r = spawnSync('bash', ['scripts/stack.sh', command], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CKG_START_TIMEOUT_SECONDS: process.env.CKG_START_TIMEOUT_SECONDS ?? '300' },
    });
    if (r.status === 0) return;
    if (i >= 3) throw new Error(`stack.sh ${command}: ${r.stderr.slice(-500)}`);
    log(`stack.sh ${command} failed (${r.stderr.trim().split('\n').at(-1)}); again`);
  }
}

export async function setChatLatency(ms: number): Promise<void> {
  await http('PUT', `${URLS.chat}/_standin/faults`, { latencyMs: ms, endpoint: 'chat' });
}

export async function setEmbeddingLatency(ms: number): Promise<void> {
  await http('PUT', `${URLS.chat}/_standin/faults`, { latencyMs: ms, endpoint: 'embeddings' });
}

/** A token for the gateway: client credentials of the service-gateway client at the stack's identity provider. */
export async function gatewayToken(): Promise<string> {
  const idp = stackEnv.KEYCLOAK_URL ?? 'http://127.0.0.1:8180';
  const realm = stackEnv.KEYCLOAK_REALM ?? 'service';
  return (await clientCredentialsToken(`${idp}/realms/${realm}/protocol/openid-connect/token`, join(ROOT, '.stack')))
    .token;
}
