// The workflows of the ingestion tests' worker: the real schedules' trigger workflow, and a stand-in
// `syncWorkflow` (same name, input and signals as the pipeline's) that moves the run pending → running and then
// waits: the test ends it with the test-only signal `standin_finish`, or the ingestion component with `cancel`.
// A `retry` signal queues a run, as the real workflow does. Replace with the real worker once it lands on main.
import { condition, defineSignal, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { StandinSyncActivities } from '../ingestion/standin-activities.ts';
import { CKG_SYNC_ID } from '../../../temporal/ingestion/start-options.ts';

export { scheduledSyncWorkflow } from '../../../workflows/scheduled-sync.ts';

const { standinBegin, standinEnd } = proxyActivities<StandinSyncActivities>({ startToCloseTimeout: '10 seconds' });

export const cancelSignal = defineSignal<[{ reason?: string }]>('cancel');
export const retrySignal = defineSignal<[{ syncId: string }]>('retry');
export const finishSignal = defineSignal<[{ status: 'completed' | 'failed'; error?: string }]>('standin_finish');

export async function syncWorkflow(input: { syncId: string; sourceId: string }): Promise<string[]> {
  const queue = [input.syncId];
  const handled: string[] = [];
  let current: string | null = null;
  let cancelReason: string | null = null;
  let finish: { status: 'completed' | 'failed'; error?: string } | null = null;
  setHandler(cancelSignal, (a) => {
    cancelReason = a?.reason ?? 'cancelled';
  });
  setHandler(retrySignal, ({ syncId }) => {
    if (syncId !== current && !queue.includes(syncId)) queue.push(syncId);
  });
  setHandler(finishSignal, (f) => {
    finish = f;
  });
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    current = next;
    cancelReason = null;
    finish = null;
    upsertSearchAttributes([{ key: CKG_SYNC_ID, value: next }]);
    if (!(await standinBegin({ syncId: next }))) continue;
    await condition(() => finish !== null || cancelReason !== null);
    const f = finish as { status: 'completed' | 'failed'; error?: string } | null;
    if (cancelReason !== null) await standinEnd({ syncId: next, status: 'cancelled', error: cancelReason });
    else if (f) await standinEnd({ syncId: next, status: f.status, ...(f.error ? { error: f.error } : {}) });
    handled.push(next);
  }
  current = null;
  return handled;
}
