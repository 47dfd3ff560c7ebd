/** Every workflow the worker runs (the worker's workflowsPath). */
export { syncWorkflow } from './sync.ts';
export { fillVectorsWorkflow } from './fill-vectors.ts';
// ingestion (schedules' trigger workflow):
export { scheduledSyncWorkflow } from './scheduled-sync.ts';
// issue 30: retention of syncs and events (the retention schedule's action)
export { retentionWorkflow } from './retention.ts';
