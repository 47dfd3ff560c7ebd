/**
 * The sync worker: workflows from workflows/index.ts, activities from createActivities. `createWorker` takes
 * ready dependencies (tests run it in-process); `startWorker` builds them from the configuration and runs it.
 */
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import { createEngine } from '../activities/engine/index.ts';
import { createPool } from '../lib/db.ts';
import { EmbeddingClient } from '../lib/embeddings.ts';
import type { Logger } from '../lib/log.ts';
import { bundlerOptions } from './bundler.ts';
import { pipelineSettings, type WorkerConfig } from './worker-config.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface WorkerDeps extends ActivityDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  maxConcurrentActivities?: number;
}

export function createWorker(deps: WorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    bundlerOptions,
    activities: createActivities(deps),
    maxConcurrentActivityTaskExecutions: deps.maxConcurrentActivities ?? 4,
    // Cancellation reaches an activity through its heartbeat response: keep heartbeats frequent.
    maxHeartbeatThrottleInterval: '1 second',
    defaultHeartbeatThrottleInterval: '1 second',
    shutdownGraceTime: '10 seconds',
  });
}

export interface RunningWorker {
  worker: Worker;
  /** Resolves when the worker has stopped. */
  done: Promise<void>;
  /** Stops polling, lets running tasks finish (grace time), closes the pool, engine and connection. */
  shutdown(): Promise<void>;
}

export async function startWorker(config: WorkerConfig, log: Logger): Promise<RunningWorker> {
  const pool = createPool(config.DATABASE_URL, {
    max: config.DATABASE_POOL_SIZE,
    applicationName: 'ckg-worker',
    acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_SECONDS * 1000,
    log,
  });
  const engine = createEngine(config.SYNC_PARSE_THREADS > 0 ? { threads: config.SYNC_PARSE_THREADS } : {});
  const embeddings = new EmbeddingClient({
    url: config.EMBEDDING_URL,
    model: config.EMBEDDING_MODEL,
    dimension: config.EMBEDDING_DIM,
    ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}),
    batchSize: config.EMBEDDING_BATCH_SIZE,
    concurrency: config.EMBEDDING_CONCURRENCY,
    attempts: config.EMBEDDING_ATTEMPTS,
    backoffMs: config.EMBEDDING_BACKOFF_MS,
    timeoutMs: config.EMBEDDING_TIMEOUT_SECONDS * 1000,
    log,
  });
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await createWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    maxConcurrentActivities: config.WORKER_MAX_CONCURRENT_ACTIVITIES,
    pool,
    engine,
    embeddings,
    settings: pipelineSettings(config),
    log,
  });
  const done = worker.run().finally(async () => {
    await engine.close();
    await pool.end();
    await connection.close();
  });
  return {
    worker,
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
