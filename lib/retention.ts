/**
 * Retention of syncs and events (issue 30; docs/decisions.md "Retention"): the policy's parameters, shared by the
 * ingestion component (which puts them in the retention schedule's action, so operators read them in the Temporal
 * UI), the worker's retention activities and the source config check.
 *
 * Per source, `config.retention = { keep_completed, keep_failed }` overrides the service-wide defaults
 * (RETENTION_KEEP_COMPLETED, RETENTION_KEEP_FAILED): the newest `keep_completed` completed syncs are kept, and the
 * newest `keep_failed` failed or cancelled ones; pinned syncs are kept besides. Older completed and failed ones are
 * cleaned and, RETENTION_PURGE_AFTER_SECONDS after their cleaning, purged; older cancelled ones are purged.
 */
import { InvalidArgumentError } from './errors.ts';

export const DEFAULT_KEEP_COMPLETED = 10;
export const DEFAULT_KEEP_FAILED = 5;
/** Upper bound of either count: the merged graph reads at most 50 syncs at once; history beyond 1000 is a dump. */
export const MAX_KEEP = 1000;

export interface RetentionPolicy {
  /** Completed syncs kept per source (at least 1: a source's newest completed sync is what every read defaults to). */
  keepCompleted: number;
  /** Failed and cancelled syncs kept per source (0: none beyond the purge delay). */
  keepFailed: number;
  /** A cleaned sync is purged this long after it was cleaned (at least the graph read cap, so no read loses it). */
  purgeAfterSeconds: number;
  /** Event rows older than this are deleted. */
  eventMaxAgeHours: number;
}

/** The input of the retention workflow (the schedule's action carries it: visible in the Temporal UI). */
export interface RetentionInput extends RetentionPolicy {
  /** Graph rows are deleted for at most this many syncs per run (a backlog is worked off over several runs). */
  maxSyncsPerRun: number;
}

export interface SourceRetention {
  keep_completed?: number;
  keep_failed?: number;
}

function intIn(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

/** Checks `retention` in a source's config (400 naming the key); absent is fine. */
export function checkRetentionConfig(config: Record<string, unknown> | undefined, field: string): void {
  const r = config?.retention;
  if (r === undefined) return;
  if (r === null || typeof r !== 'object' || Array.isArray(r))
    throw new InvalidArgumentError(`${field}.retention`, 'must be an object { keep_completed, keep_failed }');
  const o = r as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (key !== 'keep_completed' && key !== 'keep_failed')
      throw new InvalidArgumentError(`${field}.retention.${key}`, 'unknown key (keep_completed, keep_failed)');
  }
  if (o.keep_completed !== undefined && !intIn(o.keep_completed, 1, MAX_KEEP))
    throw new InvalidArgumentError(`${field}.retention.keep_completed`, `must be an integer from 1 to ${MAX_KEEP}`);
  if (o.keep_failed !== undefined && !intIn(o.keep_failed, 0, MAX_KEEP))
    throw new InvalidArgumentError(`${field}.retention.keep_failed`, `must be an integer from 0 to ${MAX_KEEP}`);
}
