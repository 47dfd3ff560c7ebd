/** The precise tier's activities (issue 29): preciseIndex, run by precise workers (temporal/precise-worker.ts). */
import { createPreciseIndex, type PreciseDeps } from './precise-index.ts';

export type { PreciseDeps } from './precise-index.ts';
export { preciseStep, toolKey } from './precise-index.ts';

export function createPreciseActivities(deps: PreciseDeps) {
  return { ...createPreciseIndex(deps) };
}

export type PreciseActivities = ReturnType<typeof createPreciseActivities>;
