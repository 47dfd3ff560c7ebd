/**
 * The ingestion component's environment, validated once at start-up (the error names the bad variable).
 */
import { databaseVars, loadConfig, type ConfigOf, type VarSpec } from '../../lib/config.ts';
import { DEFAULT_KEEP_COMPLETED, DEFAULT_KEEP_FAILED, MAX_KEEP, type RetentionInput } from '../../lib/retention.ts';

export const ingestionVars = {
  ...databaseVars,
  APP_PORT: { type: 'int', default: 8081, min: 0, max: 65535 },
  APP_HOST: { type: 'string', default: '0.0.0.0' },
  TEMPORAL_ADDRESS: { type: 'string', default: '127.0.0.1:7233' },
  TEMPORAL_NAMESPACE: { type: 'string', default: 'default' },
  /** Task queue of syncWorkflow and of the schedules' trigger workflow. */
  TEMPORAL_TASK_QUEUE: { type: 'string', default: 'ckg-sync' },
  /** Temporal schedule id = prefix + schedule row id (a prefix per deployment when several share a namespace). */
  SCHEDULE_ID_PREFIX: { type: 'string', default: 'sched-' },
  /** How long POST /api/syncs/{id}/cancel waits for the run to reach a terminal status before answering. */
  CANCEL_WAIT_MS: { type: 'int', default: 3000, min: 0, max: 60_000 },
  /** Purge and source teardown: how long a cancelled workflow may take to end before it is terminated. */
  STOP_TIMEOUT_MS: { type: 'int', default: 10_000, min: 0, max: 300_000 },
  /** A new sync whose workflow id is still held by the previous run's closing workflow waits this long for it. */
  START_CONFLICT_WAIT_MS: { type: 'int', default: 5000, min: 0, max: 60_000 },
  /**
   * Every Temporal call a request makes has a gRPC deadline: the request's own waits (CANCEL_WAIT_MS, STOP_TIMEOUT_MS,
   * START_CONFLICT_WAIT_MS) plus this long. Without one, a Temporal server that accepts connections but does not
   * answer would hold the request, and any database connection it holds, for good.
   */
  TEMPORAL_CALL_TIMEOUT_MS: { type: 'int', default: 10_000, min: 100, max: 300_000 },
  /**
   * A Temporal-backed write (a sync start, cancel, retry, purge, schedule change, source teardown) first checks that
   * Temporal answers in this long; when it does not, the write answers 503 with Retry-After at once and commits
   * nothing, instead of waiting out the client's connect retries (~20 s).
   */
  TEMPORAL_CONNECT_TIMEOUT_MS: { type: 'int', default: 3000, min: 100, max: 60_000 },
  /**
   * The watcher (watch.ts): every this many seconds, active runs whose workflow ended in Temporal (a Terminate) are
   * ended with the operator's reason, and schedules paused or unpaused in Temporal are adopted (0: off).
   */
  WATCH_INTERVAL_SECONDS: { type: 'number', default: 2, min: 0, max: 86_400 },
  /** The reconciler: every this many seconds, active runs whose workflow is not running are ended failed (0: off). */
  RECONCILE_INTERVAL_SECONDS: { type: 'number', default: 60, min: 0, max: 86_400 },
  /** A run younger than this whose workflow Temporal does not show yet is left alone (its start may be under way). */
  RECONCILE_GRACE_SECONDS: { type: 'number', default: 30, min: 0, max: 86_400 },
  /** Webhooks (docs/webhooks.md): a follow-up sync waits until pushes have paused this long... */
  WEBHOOK_QUIET_MS: { type: 'int', default: 2000, min: 0, max: 600_000 },
  /** ...unless no webhook-triggered sync of the source started within this long (then it starts at once)... */
  WEBHOOK_COOLDOWN_MS: { type: 'int', default: 30_000, min: 0, max: 3_600_000 },
  /** ...and never waits longer than this for the pushes to pause. */
  WEBHOOK_MAX_WAIT_MS: { type: 'int', default: 60_000, min: 0, max: 3_600_000 },
  /** How often the sweeper looks for follow-ups that may start (it also runs after every accepted delivery). */
  WEBHOOK_SWEEP_MS: { type: 'int', default: 1000, min: 100, max: 600_000 },
  /**
   * Retention (issue 30; docs/decisions.md "Retention"): the Temporal Schedule `<SCHEDULE_ID_PREFIX>retention` runs
   * retentionWorkflow this often (0: the component leaves the schedule alone). The policy below is its input.
   */
  RETENTION_INTERVAL_MINUTES: { type: 'int', default: 15, min: 0, max: 10_080 },
  /** Completed syncs kept per source (a source's `config.retention.keep_completed` overrides it). */
  RETENTION_KEEP_COMPLETED: { type: 'int', default: DEFAULT_KEEP_COMPLETED, min: 1, max: MAX_KEEP },
  /** Failed and cancelled syncs kept per source (`config.retention.keep_failed` overrides it). */
  RETENTION_KEEP_FAILED: { type: 'int', default: DEFAULT_KEEP_FAILED, min: 0, max: MAX_KEEP },
  /** A cleaned sync is purged this long after its cleaning (clients holding its id meanwhile see `cleaned`). */
  RETENTION_PURGE_AFTER_SECONDS: { type: 'int', default: 3600, min: 0, max: 31_536_000 },
  /** At most this many syncs are cleaned and this many purged per run; the rest waits for the next run. */
  RETENTION_MAX_SYNCS_PER_RUN: { type: 'int', default: 100, min: 1, max: 10_000 },
  /** Event rows older than this are pruned (a client resuming from before them gets an `events_missed` frame). */
  EVENT_RETENTION_HOURS: { type: 'number', default: 168, min: 0.01, max: 87_600 },
  LOG_LEVEL: { type: 'enum', values: ['debug', 'info', 'warning', 'warn', 'error'], default: 'info' },
} as const satisfies Record<string, VarSpec>;

export type IngestionConfig = ConfigOf<typeof ingestionVars>;

export function loadIngestionConfig(env: Record<string, string | undefined> = process.env): IngestionConfig {
  return loadConfig(ingestionVars, env);
}

/** The retention schedule's input, from the configuration. */
export function retentionInputOf(config: IngestionConfig): RetentionInput {
  return {
    keepCompleted: config.RETENTION_KEEP_COMPLETED,
    keepFailed: config.RETENTION_KEEP_FAILED,
    purgeAfterSeconds: config.RETENTION_PURGE_AFTER_SECONDS,
    eventMaxAgeHours: config.EVENT_RETENTION_HOURS,
    maxSyncsPerRun: config.RETENTION_MAX_SYNCS_PER_RUN,
  };
}
