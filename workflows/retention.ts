/**
 * Retention of syncs and events (issue 30), run by the Temporal Schedule `<prefix>retention` every
 * RETENTION_INTERVAL_MINUTES (operators see each run, its input — the policy — and its steps in the Temporal UI, and
 * can trigger, pause or backfill the schedule there). Steps: plan, clean the syncs past each source's window, purge
 * the cleaned syncs due for it, prune old event rows, then VACUUM (ANALYZE) what the removals touched, only when
 * something was removed. Every step re-checks each sync under its row lock, so running twice, or beside an operator's
 * own clean/purge/pin, removes nothing it should not.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { RetentionActivities } from '../activities/retention/index.ts';
import type { RetentionInput, RetentionResult } from './retention-contract.ts';

const { planRetention, pruneEvents } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '30 seconds', maximumAttempts: 5 },
});
const { cleanSyncs, purgeSyncs, vacuumGraph } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

export async function retentionWorkflow(input: RetentionInput): Promise<RetentionResult> {
  const plan = await planRetention(input);
  const cleaned = plan.clean.length > 0 ? await cleanSyncs({ syncIds: plan.clean }) : { done: 0, skipped: 0 };
  const purged =
    plan.purge.length > 0
      ? await purgeSyncs({ syncIds: plan.purge, purgeAfterSeconds: input.purgeAfterSeconds })
      : { done: 0, skipped: 0 };
  const events = await pruneEvents({ eventMaxAgeHours: input.eventMaxAgeHours });
  const removed = cleaned.done + purged.done > 0 || events.pruned > 0;
  if (removed) await vacuumGraph();
  return {
    cleaned: cleaned.done,
    purged: purged.done,
    deferred: plan.deferred,
    skipped: cleaned.skipped + purged.skipped,
    eventsPruned: events.pruned,
    vacuumed: removed,
  };
}
