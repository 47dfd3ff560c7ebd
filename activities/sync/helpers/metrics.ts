/**
 * Sync metrics of the worker: `ckg_syncs_total{status}` counts runs as they reach a final status (completed, failed,
 * cancelled), `ckg_sync_phase_duration_seconds{phase}` the phases of completed runs, `ckg_sync_duration_seconds` their
 * total. Recorded by the lifecycle activities only when their transaction changed the run, so a retried activity
 * counts a run once.
 */
import { counter, histogram, PHASE_BUCKETS } from '../../../lib/metrics.ts';
import { PHASES } from '../../../lib/sync-runs/index.ts';

const syncs = counter('ckg_syncs_total', 'Sync runs that reached a final status, by status', ['status']);
const phaseDuration = histogram(
  'ckg_sync_phase_duration_seconds',
  'Duration of each phase of completed sync runs',
  ['phase'],
  PHASE_BUCKETS,
);
const syncDuration = histogram('ckg_sync_duration_seconds', 'Duration of completed sync runs', [], PHASE_BUCKETS);

export function recordSyncEnded(status: 'completed' | 'failed' | 'cancelled'): void {
  syncs.inc({ status });
}

/** `durations` in ms by phase name (the run's stats.durations_ms); names outside PHASES are not labels. */
export function recordSyncDurations(durations: Record<string, number | undefined>): void {
  for (const phase of PHASES) {
    const ms = durations[phase];
    if (typeof ms === 'number') phaseDuration.observe({ phase }, ms / 1000);
  }
  if (typeof durations.total === 'number') syncDuration.observe(durations.total / 1000);
}
