/**
 * Fills the missing vectors of a completed sync (POST /api/syncs/{id}/embed): one heartbeating activity on any
 * worker (it clones the sync's commit itself when file vectors are missing). Workflow id `embed-<sync id>`, so one
 * fill per sync runs at a time. Only ids and counts pass through history.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { SyncActivities } from '../activities/index.ts';
import type { FillVectorsResult } from '../activities/sync/fill-vectors.ts';

import type { FillVectorsInput } from './fill-vectors-contract.ts';

const acts = proxyActivities<SyncActivities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['SyncNotCompleted'],
  },
});

export async function fillVectorsWorkflow(input: FillVectorsInput): Promise<FillVectorsResult> {
  return acts.fillSyncVectors(input);
}
