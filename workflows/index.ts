/** Every workflow the worker runs (the worker's workflowsPath). */
// ingestion (schedules' trigger workflow):
export { scheduledSyncWorkflow } from './scheduled-sync.ts';
