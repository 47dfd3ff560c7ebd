/**
 * Fault steps of the harness. Each one injects a fault around a real sync of the corpus and checks the invariants:
 * the run ends `completed` or `failed` with a reason within the bound; no source stays blocked; a completed run's rows,
 * vertices and edges equal the clean run of the same commit; no request hangs past its cap.
 */
import type { Endpoint } from './readers.ts';
import {
  URLS,
  type Reply,
  blockedSources,
  db,
  setEmbeddingLatency,
  createSource,
  http,
  kill9,
  log,
  pidOf,
  runCounts,
  sleep,
  stack,
  startSync,
  waitEnd,
  waitStatus,
} from './common.ts';

/** A run must end within this after its fault (heartbeat timeout 60 s + retry + the sync itself). */
export const END_BOUND_MS = 300_000;

export interface StepResult {
  step: string;
  ok: boolean;
  detail: string;
}

const same = (a: Record<string, number>, b: Record<string, number>) => JSON.stringify(a) === JSON.stringify(b);

async function endCheck(step: string, syncId: string, baseline: Record<string, number>): Promise<StepResult> {
  const end = await waitEnd(syncId, END_BOUND_MS);
  if (end.status === 'completed') {
    const counts = await runCounts(syncId);
    return {
      step,
      ok: same(counts, baseline),
      detail: `completed in ${Math.round(end.ms / 1000)} s; counts ${same(counts, baseline) ? 'equal the clean run' : `DIFFER ${JSON.stringify(counts)}`}`,
    };
  }
  if (end.status === 'failed') {
    return { step, ok: Boolean(end.error), detail: `failed with reason: ${end.error ?? '(none!)'}` };
  }
  return { step, ok: false, detail: `run ${end.status} after ${Math.round(end.ms / 1000)} s` };
}

/**
 * One run: a sync, kill -9 of the worker at a random point within `windowMs` of it while the run is still running
 * (a kill that would land after the run ended is retried on a new run with half the window, so every repetition
 * is a real mid-run kill), restart.
 */
export async function killWorker(round: number, sourceId: string, baseline: Record<string, number>, windowMs: number) {
  for (let window = windowMs; ; window = Math.max(200, window / 2)) {
    const syncId = await startSync(sourceId);
    const at = Math.round(Math.random() * window);
    await sleep(at);
    const now = await db.query<{ status: string; phase: string | null }>(
      `SELECT status, progress_meta->>'phase' AS phase FROM sync_runs WHERE id = $1`,
      [syncId],
    );
    const row = now.rows[0];
    if (row?.status !== 'running' && row?.status !== 'pending') {
      log(`kill-worker #${round}: the run ended before ${at} ms; again with a ${Math.round(window / 2)} ms window`);
      continue;
    }
    kill9('worker');
    log(`kill-worker #${round}: kill -9 at ${at} ms (run ${row.status}, phase ${row.phase ?? '-'})`);
    await sleep(500);
    stack('processes');
    const r = await endCheck(
      `kill -9 worker #${round} at ${at} ms in phase ${row.phase ?? row.status}`,
      syncId,
      baseline,
    );
    log(`  ${r.ok ? 'ok' : 'FAIL'}: ${r.detail}`);
    return r;
  }
}

const alive = (pid: number | undefined) => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A running sync, then a random wait of up to `maxMs` (the fault lands somewhere in the run's first part). */
async function runningSync(sourceId: string, maxMs: number): Promise<{ syncId: string; at: number }> {
  const syncId = await startSync(sourceId);
  await waitStatus(syncId, 'running', 60_000);
  const at = Math.round(Math.random() * maxMs);
  await sleep(at);
  return { syncId, at };
}

export async function pgCrash(
  round: number,
  sourceId: string,
  baseline: Record<string, number>,
  downMs: number,
  syncMs: number,
) {
  // The dev stack runs PostgreSQL with synchronous_commit = off (scripts/stack/pg.sh), so an immediate stop loses
  // the last commits the service was told were durable; a production database does not. The step crashes a
  // database configured like production: on for the step, back to the cluster's setting afterwards.
  await db.query(`ALTER SYSTEM SET synchronous_commit = on`);
  await db.query(`SELECT pg_reload_conf()`);
  let syncId: string, at: number, during: Reply, survived: boolean;
  try {
    ({ syncId, at } = await runningSync(sourceId, syncMs * 0.7));
    stack('pg-crash');
    const graphPid = pidOf('graph');
    const workerPid = pidOf('worker');
    during = await http('GET', `${URLS.graph}/api/sources`);
    await sleep(downMs);
    survived = alive(graphPid) && alive(workerPid);
  } finally {
    // Whatever happened, the database comes back with the cluster's own setting.
    stack('services');
    // The harness's own idle connections died with the server: a statement may need a second try.
    for (let i = 0; i < 6; i++) {
      const reset = await db
        .query(`ALTER SYSTEM RESET synchronous_commit`)
        .then(() => db.query(`SELECT pg_reload_conf()`))
        .then(
          () => true,
          () => false,
        );
      if (reset) break;
      await sleep(1000);
    }
  }
  const r = await endCheck(
    `PostgreSQL immediate stop ${downMs / 1000} s at ${at} ms into the run #${round}`,
    syncId,
    baseline,
  );
  r.detail += `; graph read while down: ${during.status} (${(during.body as { error?: { code?: string } })?.error?.code ?? ''}, ${Math.round(during.ms)} ms); graph and worker alive through it: ${survived}`;
  r.ok = r.ok && during.status === 503 && !during.hung && survived;
  return r;
}

export async function temporalRestart(
  round: number,
  sourceId: string,
  baseline: Record<string, number>,
  downMs: number,
  syncMs: number,
) {
  const { syncId, at } = await runningSync(sourceId, syncMs * 0.7);
  let during: Reply;
  try {
    stack('temporal-stop');
    during = await http('POST', `${URLS.ingestion}/api/syncs`, { source_id: sourceId, triggered_by: 'reliability' });
    await sleep(downMs);
  } finally {
    stack('services');
  }
  const r = await endCheck(
    `Temporal server stop ${downMs / 1000} s at ${at} ms into the run #${round}`,
    syncId,
    baseline,
  );
  r.detail += `; POST /api/syncs while down: ${during.status} (${Math.round(during.ms)} ms)`;
  r.ok = r.ok && !during.hung && during.status !== 500;
  return r;
}

async function waitPhase(syncId: string, prefix: string, boundMs: number): Promise<string | undefined> {
  const started = Date.now();
  while (Date.now() - started < boundMs) {
    const r = await db.query<{ status: string; phase: string | null }>(
      `SELECT status, progress_meta->>'phase' AS phase FROM sync_runs WHERE id = $1`,
      [syncId],
    );
    const row = r.rows[0];
    if (!row || (row.status !== 'pending' && row.status !== 'running')) return undefined;
    if (row.phase?.startsWith(prefix)) return row.phase;
    await sleep(100);
  }
  return undefined;
}

/**
 * Embedding calls slowed to 2 s (the stand-in's knob) so the phase lasts; kill -9 of the model host within the first
 * call of the run's first embedding phase, so at least one call is cut and retried.
 */
export async function modelDown(round: number, sourceId: string, baseline: Record<string, number>, downMs: number) {
  await setEmbeddingLatency(2000);
  const syncId = await startSync(sourceId);
  const phase = await waitPhase(syncId, 'embedding', 300_000);
  await sleep(Math.random() * 1500);
  kill9('model-host');
  await sleep(downMs);
  stack('processes'); // the restarted stand-in has no latency
  const r = await endCheck(
    `model host down ${downMs / 1000} s in phase ${phase ?? '(not reached!)'} #${round}`,
    syncId,
    baseline,
  );
  const missing = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM content_chunks c JOIN file_records f ON f.id = c.file_id
      WHERE f.sync_id = $1 AND c.embedding IS NULL`,
    [syncId],
  );
  r.detail += `; chunks without embedding afterwards: ${missing.rows[0]!.n}`;
  r.ok = r.ok && phase !== undefined;
  return r;
}

export async function deleteMidSync(round: number, corpus: string, syncMs: number) {
  const sourceId = await createSource(`delete-mid-${Date.now()}-${round}`, corpus);
  const { syncId, at } = await runningSync(sourceId, syncMs * 0.7);
  const del = await http('DELETE', `${URLS.graph}/api/sources/${sourceId}`, undefined, { timeoutMs: 60_000 });
  const end = await waitEnd(syncId, 60_000);
  const left = await db.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM file_records WHERE source_id = $1) + (SELECT count(*) FROM sync_runs WHERE source_id = $1) AS n`,
    [sourceId],
  );
  // A write that was in flight must not bring rows back after the delete: check again a little later.
  await sleep(5000);
  const later = await db.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM file_records WHERE source_id = $1) + (SELECT count(*) FROM sync_runs WHERE source_id = $1) AS n`,
    [sourceId],
  );
  return {
    step: `source deleted ${at} ms into its sync #${round}`,
    ok: del.status === 204 && end.status === 'gone' && left.rows[0]!.n === '0' && later.rows[0]!.n === '0',
    detail: `DELETE ${del.status} in ${Math.round(del.ms)} ms; run afterwards: ${end.status}; rows left ${left.rows[0]!.n}, 5 s later ${later.rows[0]!.n}`,
  };
}

/**
 * 50 reads in flight (half straight to the component, half through the gateway), kill -9 of the graph component,
 * more reads through the gateway while it is down, restart.
 */
export async function killGraph(round: number, reads: Endpoint[], token: string) {
  const auth = { headers: { authorization: `Bearer ${token}` } };
  const fire = (i: number) =>
    i % 2 === 0
      ? http('GET', URLS.graph + reads[i % reads.length]![1]())
      : http('GET', URLS.gateway + reads[i % reads.length]![1](), undefined, auth);
  const inflight = Array.from({ length: 50 }, (_, i) => fire(i));
  await sleep(20 + Math.random() * 200);
  kill9('graph');
  const replies = await Promise.all(inflight);
  const down = await Promise.all(Array.from({ length: 10 }, (_, i) => fire(2 * i + 1)));
  stack('processes');
  const after = await http('GET', `${URLS.graph}/api/graph/stats`);
  const all = [...replies, ...down];
  const hung = all.filter((r) => r.hung).length;
  const shape = (r: Reply) => typeof (r.body as { error?: { code?: unknown } })?.error?.code === 'string';
  const bad5xx = all.filter((r) => r.status >= 500 && !([502, 503, 504].includes(r.status) && shape(r))).length;
  const downStatuses: Record<string, number> = {};
  for (const r of down) downStatuses[r.status] = (downStatuses[r.status] ?? 0) + 1;
  return {
    step: `kill -9 graph component with 50 requests in flight #${round}`,
    ok: hung === 0 && bad5xx === 0 && after.status === 200,
    detail: `in flight: answered ${replies.filter((r) => r.status > 0).length}, cut ${replies.filter((r) => r.status === 0 && !r.hung).length}; gateway while down: ${JSON.stringify(downStatuses)} (max ${Math.round(Math.max(...down.map((r) => r.ms)))} ms); 5xx outside 502/503/504 + error shape ${bad5xx}; hung ${hung}; after restart: ${after.status}`,
  };
}

export async function noneBlocked(): Promise<StepResult> {
  const n = await blockedSources(END_BOUND_MS);
  return {
    step: 'no source blocked',
    ok: n === 0,
    detail: `${n} sources with an active run older than ${END_BOUND_MS / 1000} s`,
  };
}
