/** Every workflow the worker runs (the worker's workflowsPath). */
export { syncWorkflow } from './sync.ts';
export { fillVectorsWorkflow } from './fill-vectors.ts';
// ingestion (schedules' trigger workflow):
export { scheduledSyncWorkflow } from './scheduled-sync.ts';
