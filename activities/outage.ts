/**
 * Database outages outlasted by the sync activities. An activity that fails because PostgreSQL is unreachable or
 * restarting (lib/errors.ts isDatabaseUnavailable) does not hand the error to Temporal at once: it first waits, with
 * heartbeats and backoff, until the database answers again (at most `waitMs`, and never past the attempt's own
 * start-to-close timeout), then rethrows, so Temporal's retry meets a database that is up. Without this a 45 s
 * restart used up an activity's five attempts (1 + 2 + 4 + 8 s of backoff) and failed the sync.
 *
 * The wait does not retry the work itself: every attempt of a step is idempotent (its ledger row), and Temporal's
 * retry policy stays the one place that decides. Cancellation ends the wait at once.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ping, type Pool } from '../lib/db.ts';
import { isDatabaseUnavailable } from '../lib/errors.ts';
import type { Logger } from '../lib/log.ts';

export interface OutageOptions {
  pool: Pool;
  log: Logger;
  /** Longest wait for the database per failed attempt. */
  waitMs: number;
}

/** The error, or one of its causes, says the database could not be reached. */
export function databaseWasUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    if (isDatabaseUnavailable(e)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Waits `ms`, or less when the activity is cancelled (an abort ends the wait early; it is not an error here). */
const sleep = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined);

/** Waits until the database answers (ping); false when `ms` passed or the activity was cancelled first. */
async function databaseBack(pool: Pool, ms: number, ctx: Context): Promise<boolean> {
  const until = Date.now() + ms;
  for (let delay = 500; Date.now() < until && !ctx.cancellationSignal.aborted; delay = Math.min(delay * 2, 5000)) {
    ctx.heartbeat({ waiting: 'database' });
    try {
      await ping(pool);
      return true;
    } catch (err) {
      if (!databaseWasUnavailable(err)) return true; // it answers, with some other complaint: let the retry see it
    }
    await sleep(Math.min(delay, Math.max(0, until - Date.now())), ctx.cancellationSignal);
  }
  return false;
}

type AnyActivity = (...args: never[]) => Promise<unknown>;

/** Wraps every activity of `activities` (same names, same types). */
export function outlastDatabaseOutages<T extends Record<string, AnyActivity>>(activities: T, o: OutageOptions): T {
  const wrapped: Record<string, AnyActivity> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      const started = Date.now();
      try {
        return await fn(...args);
      } catch (err) {
        if (!databaseWasUnavailable(err)) throw err;
        const ctx = Context.current();
        // Leave 2 s of the attempt for the rethrow to reach Temporal as this attempt's failure.
        const left = ctx.info.startToCloseTimeoutMs - (Date.now() - started) - 2000;
        const waitMs = Math.min(o.waitMs, left);
        const t0 = Date.now();
        o.log.warning('activity_database_unavailable', {
          activity: name,
          attempt: ctx.info.attempt,
          wait_ms: Math.max(0, waitMs),
          error: err,
        });
        const back = waitMs > 0 && (await databaseBack(o.pool, waitMs, ctx));
        o.log.info('activity_database_wait_ended', { activity: name, back, waited_ms: Date.now() - t0 });
        throw err;
      }
    };
  }
  return wrapped as T;
}
