/**
 * The worker's activities, built from injected dependencies (pool, engine, embedding client, settings, logger).
 * One line per activity module: other components add theirs here.
 */
import type { ActivityDeps } from './sync/deps.ts';
import { createChunkEmbeddingActivities } from './sync/chunk-embeddings.ts';
import { createIngestActivities } from './sync/ingest.ts';
import { createFillVectorActivities } from './sync/fill-vectors.ts';
import { createLifecycleActivities } from './sync/lifecycle.ts';
import { createScheduleActivities } from './schedule/index.ts';

export type { ActivityDeps, PipelineSettings } from './sync/deps.ts';
export { DEFAULT_PIPELINE_SETTINGS } from './sync/deps.ts';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createLifecycleActivities(deps),
    ...createIngestActivities(deps),
    ...createChunkEmbeddingActivities(deps),
    ...createFillVectorActivities(deps),
    // ingestion (the schedules' trigger workflow):
    ...createScheduleActivities({ pool: deps.pool, log: deps.log }),
  };
}

export type SyncActivities = ReturnType<typeof createActivities>;
