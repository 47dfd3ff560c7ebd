/**
 * The worker's activities, built from injected dependencies (pool, engine, embedding client, settings, logger, the
 * clones this process holds). One file per activity, named after it, in the order a sync runs them
 * (docs/pipeline.md has their inputs, outputs, queues, timeouts and retries).
 */
import type { ActivityDeps } from './sync/helpers/deps.ts';
import { createBeginSync } from './sync/begin-sync.ts';
import { createCloneRepository } from './sync/clone-repository.ts';
import { createParseBatch } from './sync/parse-batch.ts';
import { createWriteBatch } from './sync/write-batch.ts';
import { createReleaseWorkspace } from './sync/release-workspace.ts';
import { createResolveDependencies } from './sync/resolve-dependencies.ts';
import { createResolveSymbols } from './sync/resolve-symbols.ts';
import { createEmbedFiles } from './sync/embed-files.ts';
import { createEmbedChunks } from './sync/embed-chunks.ts';
import { createFinalizeSync } from './sync/finalize-sync.ts';
import { createPrecisePlan } from './precise/plan.ts';
import { createEndSync } from './sync/end-sync.ts';
import { createSignalActivities } from './sync/signals.ts';
import { createFillVectorActivities } from './sync/fill-vectors.ts';
import { createScheduleActivities } from './schedule/index.ts';
import { createRetentionActivities } from './retention/index.ts';
import { outlastDatabaseOutages } from './outage.ts';

export type { ActivityDeps, PipelineSettings } from './sync/helpers/deps.ts';
export { DEFAULT_PIPELINE_SETTINGS } from './sync/helpers/deps.ts';
export { Workspaces } from './sync/helpers/workspace.ts';

/** How long a failed attempt waits for an unreachable database before Temporal retries it (docs/reliability.md). */
export const DEFAULT_DATABASE_OUTAGE_WAIT_MS = 120_000;

export function createActivities(deps: ActivityDeps) {
  const activities = {
    ...createBeginSync(deps),
    ...createCloneRepository(deps),
    ...createParseBatch(deps),
    ...createWriteBatch(deps),
    ...createReleaseWorkspace(deps),
    ...createResolveDependencies(deps),
    ...createResolveSymbols(deps),
    // issue 29: which languages the precise tier runs, and an issue for a precise step that did not complete
    ...createPrecisePlan(deps),
    ...createEmbedFiles(deps),
    ...createEmbedChunks(deps),
    ...createFinalizeSync(deps),
    ...createEndSync(deps),
    ...createSignalActivities(deps),
    // issue 12: fill a completed sync's missing vectors (POST /api/syncs/{id}/embed)
    ...createFillVectorActivities(deps),
    // ingestion (the schedules' trigger workflow):
    ...createScheduleActivities({ pool: deps.pool, log: deps.log }),
    // issue 30: retention (the retention schedule's workflow)
    ...createRetentionActivities({ pool: deps.pool, log: deps.log }),
  };
  return outlastDatabaseOutages(activities, {
    pool: deps.pool,
    log: deps.log,
    waitMs: deps.settings.databaseOutageWaitMs ?? DEFAULT_DATABASE_OUTAGE_WAIT_MS,
  });
}

export type SyncActivities = ReturnType<typeof createActivities>;
