/** The sync worker's environment (validated once at start-up; the error names the bad variable). */
import { databaseVars, embeddingVars, loadConfig, type ConfigOf, type VarSpec } from '../lib/config.ts';
import type { PipelineSettings } from '../activities/sync/helpers/deps.ts';
import { sourceUrlPolicy, sourceUrlVars } from '../lib/source-url.ts';

export const workerVars = {
  ...databaseVars,
  ...embeddingVars,
  ...sourceUrlVars,
  TEMPORAL_ADDRESS: { type: 'string', default: '127.0.0.1:7233' },
  /** The worker's small HTTP port for operators: /metrics, /ready, /health (docs/deployment.md). */
  METRICS_PORT: { type: 'int', default: 8093, min: 0, max: 65535 },
  METRICS_HOST: { type: 'string', default: '0.0.0.0' },
  TEMPORAL_NAMESPACE: { type: 'string', default: 'default' },
  TEMPORAL_TASK_QUEUE: { type: 'string', default: 'ckg-sync' },
  /** A prebuilt workflow bundle (scripts/bundle-workflows.ts); empty: the worker bundles workflows/ as it starts. */
  TEMPORAL_WORKFLOW_BUNDLE: { type: 'string', default: '' },
  EMBEDDING_URL: { type: 'url', default: 'http://127.0.0.1:8101/v1/embeddings' },
  EMBEDDING_MODEL: { type: 'string', default: 'embeddings' },
  LLM_API_KEY: { type: 'string', default: '', secret: true },
  EMBEDDING_BATCH_SIZE: { type: 'int', default: 64, min: 1, max: 2048 },
  EMBEDDING_CONCURRENCY: { type: 'int', default: 4, min: 1, max: 64 },
  EMBEDDING_ATTEMPTS: { type: 'int', default: 5, min: 1, max: 20 },
  EMBEDDING_BACKOFF_MS: { type: 'int', default: 200, min: 1, max: 60_000 },
  EMBEDDING_TIMEOUT_SECONDS: { type: 'int', default: 60, min: 1, max: 3600 },
  WORKER_CLONE_DIR: { type: 'string', default: '.stack/clones' },
  /** Sources whose clone the worker keeps for their next sync (git-cache.ts); 0: a fresh clone every sync. */
  WORKER_KEPT_CLONES: { type: 'int', default: 16, min: 0, max: 10_000 },
  WORKER_MAX_CONCURRENT_ACTIVITIES: { type: 'int', default: 4, min: 1, max: 100 },
  /** Files per parse-and-write batch (one parse step and one write transaction each; docs/pipeline.md "Batches"). */
  SYNC_BATCH_FILES: { type: 'int', default: 500, min: 1, max: 100_000 },
  SYNC_MAX_FILE_BYTES: { type: 'int', default: 2 * 1024 * 1024, min: 1 },
  SYNC_PARSE_THREADS: { type: 'int', default: 0, min: 0, max: 256 },
  SYNC_HEARTBEAT_TIMEOUT_SECONDS: { type: 'number', default: 60, min: 1, max: 3600 },
  SYNC_ACTIVITY_ATTEMPTS: { type: 'int', default: 5, min: 1, max: 100 },
  SYNC_ACTIVITY_TIMEOUT_MINUTES: { type: 'int', default: 120, min: 1, max: 7 * 24 * 60 },
  SYNC_HOST_QUEUE_TIMEOUT_SECONDS: { type: 'number', default: 60, min: 1, max: 3600 },
  SYNC_CLONE_TIMEOUT_SECONDS: { type: 'int', default: 600, min: 1, max: 24 * 3600 },
  SYNC_PROGRESS_INTERVAL_MS: { type: 'int', default: 250, min: 0, max: 60_000 },
  SYNC_DATABASE_OUTAGE_WAIT_SECONDS: { type: 'int', default: 120, min: 0, max: 3600 },
  /** Plan the precise tier (issue 29) in syncs; off: no precise step and no issue about it (docs/precise.md). */
  SYNC_PRECISE: { type: 'bool', default: true },
} as const satisfies Record<string, VarSpec>;

export type WorkerConfig = ConfigOf<typeof workerVars>;

export function loadWorkerConfig(env: Record<string, string | undefined> = process.env): WorkerConfig {
  return loadConfig(workerVars, env);
}

export function pipelineSettings(c: WorkerConfig): PipelineSettings {
  return {
    cloneDir: c.WORKER_CLONE_DIR,
    keptClones: c.WORKER_KEPT_CLONES,
    batchFiles: c.SYNC_BATCH_FILES,
    maxFileBytes: c.SYNC_MAX_FILE_BYTES,
    ...(c.SYNC_PARSE_THREADS > 0 ? { parseThreads: c.SYNC_PARSE_THREADS } : {}),
    heartbeatTimeoutMs: Math.round(c.SYNC_HEARTBEAT_TIMEOUT_SECONDS * 1000),
    maxAttempts: c.SYNC_ACTIVITY_ATTEMPTS,
    attemptTimeoutMs: c.SYNC_ACTIVITY_TIMEOUT_MINUTES * 60_000,
    hostQueueTimeoutMs: Math.round(c.SYNC_HOST_QUEUE_TIMEOUT_SECONDS * 1000),
    cloneTimeoutMs: c.SYNC_CLONE_TIMEOUT_SECONDS * 1000,
    sourceUrls: sourceUrlPolicy(c),
    embeddingBatchSize: c.EMBEDDING_BATCH_SIZE,
    embeddingConcurrency: c.EMBEDDING_CONCURRENCY,
    embeddingBreakerFailures: 3,
    progressIntervalMs: c.SYNC_PROGRESS_INTERVAL_MS,
    databaseOutageWaitMs: c.SYNC_DATABASE_OUTAGE_WAIT_SECONDS * 1000,
    precise: c.SYNC_PRECISE,
  };
}
