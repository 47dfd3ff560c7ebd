/**
 * Background heartbeats for the long activities. They keep heartbeating while a step blocks (a git fetch, an
 * embedding request in its retries), so the heartbeat timeout only fires when the worker is gone; cancellation
 * reaches the activity through the heartbeat response (the worker's throttle interval is kept at one second).
 */
import { CancelledFailure, Context } from '@temporalio/activity';

export interface Heartbeat {
  /** The abort signal of the activity (cancellation, or the worker shutting down). */
  signal: AbortSignal;
  /** Details sent with the next heartbeat (small: phase and counts). */
  note(details: Record<string, unknown>): void;
  /** Throws CancelledFailure when the activity was cancelled. */
  check(): void;
  stop(): void;
}

export function startHeartbeat(everyMs: number): Heartbeat {
  const ctx = Context.current();
  let details: Record<string, unknown> = {};
  ctx.heartbeat(details);
  const timer = setInterval(() => ctx.heartbeat(details), Math.max(100, everyMs));
  timer.unref();
  return {
    signal: ctx.cancellationSignal,
    note(d) {
      details = d;
      ctx.heartbeat(details);
    },
    check() {
      if (ctx.cancellationSignal.aborted) {
        const reason: unknown = ctx.cancellationSignal.reason;
        throw reason instanceof Error ? reason : new CancelledFailure('activity cancelled');
      }
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/**
 * Runs a short step while heartbeating, so a step whose worker died is retried elsewhere after the heartbeat timeout
 * instead of its whole start-to-close timeout (the workflow sets one once it knows the worker's settings).
 */
export async function heartbeating<T>(heartbeatTimeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const hb = startHeartbeat(Math.max(200, Math.floor(heartbeatTimeoutMs / 4)));
  try {
    return await fn();
  } finally {
    hb.stop();
  }
}
