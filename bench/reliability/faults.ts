/**
 * Fault steps of the harness. Each one injects a fault around a real sync of the corpus and checks the invariants:
 * the run ends `completed` or `failed` with a reason within the bound; no source stays blocked; a completed run's rows,
 * vertices and edges equal the clean run of the same commit; no request hangs past its cap.
 */
import {
  URLS,
  blockedSources,
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

export async function killWorker(runs: number, sourceId: string, baseline: Record<string, number>, syncMs: number) {
  const out: StepResult[] = [];
  for (let i = 1; i <= runs; i++) {
    const syncId = await startSync(sourceId);
    const at = Math.round(Math.random() * syncMs);
    await sleep(at);
    kill9('worker');
    log(`kill-worker ${i}/${runs}: kill -9 at ${at} ms`);
    await sleep(500);
    stack('services');
    const r = await endCheck(`kill -9 worker #${i} at ${at} ms`, syncId, baseline);
    log(`  ${r.ok ? 'ok' : 'FAIL'}: ${r.detail}`);
    out.push(r);
  }
  return out;
}

export async function pgCrash(sourceId: string, baseline: Record<string, number>, downMs: number) {
  const syncId = await startSync(sourceId);
  await waitStatus(syncId, 'running', 60_000);
  await sleep(1500);
  stack('pg-crash');
  const graphPid = pidOf('graph');
  const during = await http('GET', `${URLS.graph}/api/sources`);
  await sleep(downMs);
  const alive = (() => {
    try {
      process.kill(graphPid!, 0);
      return true;
    } catch {
      return false;
    }
  })();
  stack('services');
  const r = await endCheck(`PostgreSQL immediate stop for ${downMs / 1000} s mid-sync`, syncId, baseline);
  r.detail += `; graph read while down: ${during.status} (${(during.body as { error?: { code?: string } })?.error?.code ?? ''}); graph process alive through it: ${alive}`;
  r.ok = r.ok && during.status === 503 && alive;
  return r;
}

export async function temporalRestart(sourceId: string, baseline: Record<string, number>) {
  const syncId = await startSync(sourceId);
  await waitStatus(syncId, 'running', 60_000);
  await sleep(1500);
  stack('temporal-stop');
  await sleep(5000);
  stack('services');
  return endCheck('Temporal server restart mid-sync', syncId, baseline);
}

export async function modelDown(sourceId: string, baseline: Record<string, number>) {
  const syncId = await startSync(sourceId);
  await waitStatus(syncId, 'running', 60_000);
  await sleep(2000);
  kill9('model-host');
  await sleep(10_000);
  stack('services');
  return endCheck('model host down 10 s mid-embedding', syncId, baseline);
}

export async function deleteMidSync(corpus: string) {
  const sourceId = await createSource(`delete-mid-${Date.now()}`, corpus);
  const syncId = await startSync(sourceId);
  await waitStatus(syncId, 'running', 60_000);
  const del = await http('DELETE', `${URLS.graph}/api/sources/${sourceId}`, undefined, { timeoutMs: 60_000 });
  const end = await waitEnd(syncId, 60_000);
  return {
    step: 'source deleted while its sync runs',
    ok: del.status === 204 && (end.status === 'gone' || end.status === 'cancelled'),
    detail: `DELETE ${del.status}; run afterwards: ${end.status}`,
  };
}

export async function killGraph(nodeId: string) {
  const paths = ['/api/graph/stats', '/api/sources', `/api/graph/nodes/${encodeURIComponent(nodeId)}`, '/api/syncs'];
  const inflight = Array.from({ length: 50 }, (_, i) => http('GET', URLS.graph + paths[i % paths.length]!));
  await sleep(30);
  kill9('graph');
  const replies = await Promise.all(inflight);
  stack('services');
  const after = await http('GET', `${URLS.graph}/api/graph/stats`);
  const hung = replies.filter((r) => r.hung).length;
  return {
    step: 'kill -9 graph component with 50 requests in flight',
    ok: hung === 0 && after.status === 200,
    detail: `answered ${replies.filter((r) => r.status > 0).length}, cut ${replies.filter((r) => r.status === 0 && !r.hung).length}, hung ${hung}; after restart: ${after.status}`,
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
