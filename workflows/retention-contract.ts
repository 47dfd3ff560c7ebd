/**
 * The retention workflow's contract (pure: imported by the workflow and by the ingestion component, which keeps the
 * Temporal Schedule that runs it). Docs: docs/decisions.md "Retention", docs/operators.md.
 */
import type { RetentionInput } from '../lib/retention.ts';

export const RETENTION_WORKFLOW_TYPE = 'retentionWorkflow';

/** The Temporal schedule id: the deployment's schedule prefix + `retention` (e.g. `sched-retention`). */
export function retentionScheduleId(prefix: string): string {
  return `${prefix}retention`;
}

export type { RetentionInput };

export interface RetentionResult {
  cleaned: number;
  purged: number;
  /** Syncs left for the next run (more than maxSyncsPerRun were due). */
  deferred: number;
  /** Left alone because their state changed since the plan (pinned, retried, removed by an operator). */
  skipped: number;
  eventsPruned: number;
  vacuumed: boolean;
}
