/** What the worker injects into the sync activities (the factory pattern of temporalio/samples-typescript). */
import type { Pool } from '../../../lib/db.ts';
import type { EmbeddingClient } from '../../../lib/embeddings.ts';
import type { Logger } from '../../../lib/log.ts';
import { DEFAULT_URL_POLICY, type SourceUrlPolicy } from '../../../lib/source-url.ts';
import type { Engine } from '../../../engine/types.ts';
import type { Workspaces } from './workspace.ts';

export interface PipelineSettings {
  /** Where clones live while a sync runs (one folder per sync, removed afterwards). */
  cloneDir: string;
  /** Sources whose clone a worker keeps between syncs (git-cache.ts); 0 or absent: none. */
  keptClones?: number;
  /**
   * Files per parse-and-write batch of a full sync (SYNC_BATCH_FILES; absent: BATCH_FILES, 500). A batch is one
   * parse step and one write transaction; files whose analysis is reused count a tenth (workspace.ts batchPlan).
   */
  batchFiles?: number;
  /** Files above this size are recorded without content analysis (engine option). */
  maxFileBytes: number;
  /** Parse threads; undefined = the number of cores. */
  parseThreads?: number;
  /** Heartbeat timeout of the long activities: how soon a dead worker's activity is retried elsewhere. */
  heartbeatTimeoutMs: number;
  /** Attempts of the long activities. */
  maxAttempts: number;
  /** Upper bound of one attempt of a long activity. */
  attemptTimeoutMs: number;
  /** How long a step waits for the worker holding the clone before the sync clones again elsewhere. */
  hostQueueTimeoutMs: number;
  /** Upper bound of the git fetch. */
  cloneTimeoutMs: number;
  /** Which repository URLs the worker fetches (lib/source-url.ts; SOURCE_URL_SCHEMES, SOURCE_URL_HOSTS). */
  sourceUrls: SourceUrlPolicy;
  /** Inputs per embedding request and requests in flight. */
  embeddingBatchSize: number;
  embeddingConcurrency: number;
  /** Consecutive failed embedding requests after which the rest of a phase is skipped (endpoint is down). */
  embeddingBreakerFailures: number;
  /** Minimum gap between two sync_progress events of one sync. */
  progressIntervalMs: number;
  /**
   * Plan the precise tier (issue 29) in syncs: run it where a precise worker has the language's indexer, and record
   * an issue per language where none does. Default true; false: no precise step and no issue about it.
   */
  precise?: boolean;
  /** How long an attempt that met an unreachable database waits for it before failing (activities/outage.ts). */
  databaseOutageWaitMs?: number;
}

export interface ActivityDeps {
  pool: Pool;
  engine: Engine;
  embeddings: EmbeddingClient;
  settings: PipelineSettings;
  log: Logger;
  /** The clones this process holds and its own task queue (made by the worker). */
  workspaces: Workspaces;
}

export const DEFAULT_PIPELINE_SETTINGS: PipelineSettings = {
  cloneDir: '.stack/clones',
  keptClones: 16,
  maxFileBytes: 2 * 1024 * 1024,
  heartbeatTimeoutMs: 60_000,
  maxAttempts: 5,
  attemptTimeoutMs: 2 * 60 * 60 * 1000,
  hostQueueTimeoutMs: 60_000,
  cloneTimeoutMs: 10 * 60 * 1000,
  sourceUrls: DEFAULT_URL_POLICY,
  embeddingBatchSize: 64,
  embeddingConcurrency: 4,
  embeddingBreakerFailures: 3,
  progressIntervalMs: 250,
};
