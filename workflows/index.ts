/** Every workflow the worker runs (the worker's workflowsPath). */
export { syncWorkflow, cancelSignal, retrySignal } from './sync.ts';
