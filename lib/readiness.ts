/**
 * Readiness, apart from liveness: `/health` says the process is alive (the specification's `{status:"ok"}`);
 * `/ready` says whether it can serve now: its database answers, its Temporal connection answers, its upstreams are
 * up. Orchestrators stop routing to an instance that is not ready (503) without restarting it.
 *
 * Every check runs at once, each bounded by `timeoutMs`; the answer names each check with `ok` or why it failed.
 * A failed required check makes the instance not ready; an optional one (a dependency only some requests need) is
 * reported and alerted on, but does not take the instance out of rotation (that would not help those requests and
 * would stop all the others). `ckg_ready_check_up{check}` holds each check's last result (1 or 0) for alerting.
 */
import { ping, type Pool } from './db.ts';
import { gauge } from './metrics.ts';

/** Resolves when the dependency is usable; rejects (with the reason) when not. */
export type ReadyCheck = () => Promise<unknown>;

export interface ReadyReport {
  status: 'ready' | 'not_ready';
  checks: Record<string, string>;
}

const checkUp = gauge('ckg_ready_check_up', 'Last result of each readiness check (1 ok, 0 failed)', ['check']);

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export function createReadiness(
  required: Record<string, ReadyCheck>,
  optional: Record<string, ReadyCheck> = {},
  timeoutMs = 2000,
): () => Promise<ReadyReport> {
  const checks = { ...optional, ...required };
  return async () => {
    const names = Object.keys(checks);
    const results = await Promise.allSettled(names.map((n) => within(Promise.resolve().then(checks[n]), timeoutMs)));
    const out: Record<string, string> = {};
    let ready = true;
    results.forEach((r, i) => {
      const name = names[i]!;
      checkUp.set({ check: name }, r.status === 'fulfilled' ? 1 : 0);
      if (r.status === 'fulfilled') out[name] = 'ok';
      else {
        if (name in required) ready = false;
        out[name] = r.reason instanceof Error ? r.reason.message : String(r.reason);
      }
    });
    return { status: ready ? 'ready' : 'not_ready', checks: out };
  };
}

/** The database answers a trivial query (through the pool: a pool with no connection to give is not ready). */
export function databaseCheck(pool: Pool): ReadyCheck {
  return () => ping(pool);
}

/** An HTTP dependency's liveness URL answers 2xx. */
export function httpCheck(url: string, timeoutMs = 2000): ReadyCheck {
  return async () => {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  };
}

/** The Temporal frontend answers (GetSystemInfo on the workflow service of a client or a worker connection). */
export function temporalCheck(workflowService: { getSystemInfo(req: object): Promise<unknown> }): ReadyCheck {
  return () => workflowService.getSystemInfo({});
}
