/** What the ingestion component's handlers need, injected by `createApp` (tests pass their own database/queue). */
import type { Client } from '@temporalio/client';
import type { Pool } from '../../lib/db.ts';
import type { Logger } from '../../lib/log.ts';
import type { Sweeper, SweeperSettings } from './webhooks/types.ts';

export interface IngestionSettings {
  /** Task queue of syncWorkflow and of the schedules' trigger workflow. */
  taskQueue: string;
  /** Temporal schedule id = prefix + schedule row id. */
  scheduleIdPrefix: string;
  /** Cancel waits this long for a terminal status before answering with the run as it is. */
  cancelWaitMs: number;
  /** Purge / teardown: a cancelled workflow that has not ended after this long is terminated. */
  stopTimeoutMs: number;
  /** Start conflict with the previous run's closing workflow: wait this long for it, once. */
  startConflictWaitMs: number;
  /**
   * Every Temporal call a request makes ends by the request's start + the waits above + this (default 10 s).
   */
  temporalCallTimeoutMs?: number;
  /**
   * A Temporal-backed write first checks that Temporal answers within this long (default 3 s), else 503 at once
   * (temporal-gate.ts).
   */
  temporalConnectTimeoutMs?: number;
  /** The reconciler leaves a run without any workflow alone while it is younger than this (default 30 s). */
  reconcileGraceMs?: number;
  /** Coalescing of webhook-requested syncs (webhooks/followups.ts); defaults DEFAULT_SWEEPER. */
  webhooks?: SweeperSettings;
}

export interface IngestionDeps {
  pool: Pool;
  temporal: Client;
  log: Logger;
  /** Liveness check for /health (lib/db.ts poolLiveness): a reason when the process can no longer serve. */
  liveness?: () => string | undefined;
  settings: IngestionSettings;
  /** Starts the syncs webhook deliveries ask for; without one, createApp runs passes only when a delivery kicks it. */
  webhookSweeper?: Sweeper;
  /** Milliseconds since the epoch, for how long a failed Temporal probe is remembered (Date.now). */
  now?: () => number;
}

/** Every Temporal call a request makes ends by the request's start + this: the request's own waits + the call timeout. */
export function requestDeadlineMs(s: IngestionSettings): number {
  return s.cancelWaitMs + s.stopTimeoutMs + s.startConflictWaitMs + (s.temporalCallTimeoutMs ?? 10_000);
}
