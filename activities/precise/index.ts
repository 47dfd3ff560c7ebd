/**
 * The precise tier's activities (issue 29): preparePrecise and preciseIndex, run by precise workers
 * (temporal/precise-worker.ts). `createPreciseIndex` also gives the worker its sweep of held indexes.
 */
import { createPreciseIndex, type PreciseDeps } from './precise-index.ts';

export type { PreciseDeps } from './precise-index.ts';
export { HELD_TTL_MS, createPreciseIndex, preciseStep, toolKey } from './precise-index.ts';

export function createPreciseActivities(deps: PreciseDeps) {
  return { ...createPreciseIndex(deps).activities };
}

export type PreciseActivities = ReturnType<typeof createPreciseActivities>;
