/**
 * The sync worker: workflows from workflows/index.ts, activities from createActivities, on the shared task queue
 * and on the process's own queue. `createWorker` takes
 * ready dependencies (tests run it in-process); `startWorker` builds them from the configuration and runs it.
 */
import { DefaultLogger, makeTelemetryFilterString, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities, Workspaces, type ActivityDeps } from '../activities/index.ts';
import { createEngine } from '../engine/index.ts';
import { createPool } from '../lib/db.ts';
import { EmbeddingClient } from '../lib/embeddings.ts';
import type { Logger } from '../lib/log.ts';
import type { Ready } from '../lib/ops-routes.ts';
import { createReadiness, databaseCheck, temporalCheck } from '../lib/readiness.ts';
import { workflowSource } from './bundler.ts';
import { pipelineSettings, type WorkerConfig } from './worker-config.ts';

export { WORKFLOWS_PATH } from './bundler.ts';

export interface WorkerDeps extends Omit<ActivityDeps, 'workspaces'> {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  maxConcurrentActivities?: number;
  /** A prebuilt workflow bundle (temporal/bundler.ts); without it the worker bundles workflows/ as it starts. */
  workflowBundlePath?: string;
}

/**
 * One worker process = two Temporal workers sharing the activities: one on the shared task queue (workflows, and
 * the steps any worker can run: beginSync, cloneRepository, resolveDependencies, embedFiles, embedChunks,
 * finalizeSync, endSync) and one on this process's own queue (the steps that need the clone it holds: parseBatch,
 * writeBatch, releaseWorkspace). Both run, stop and fail together.
 */
export class SyncWorker {
  private constructor(
    readonly shared: Worker,
    readonly host: Worker,
    private readonly workspaces: Workspaces,
  ) {}

  static async create(deps: WorkerDeps): Promise<SyncWorker> {
    const workspaces = new Workspaces(deps.settings.cloneDir, deps.taskQueue, deps.settings.keptClones ?? 0);
    const activities = createActivities({ ...deps, workspaces });
    const common = {
      connection: deps.connection,
      namespace: deps.namespace,
      activities,
      // Cancellation reaches an activity through its heartbeat response: keep heartbeats frequent.
      maxHeartbeatThrottleInterval: '1 second',
      defaultHeartbeatThrottleInterval: '1 second',
      shutdownGraceTime: '10 seconds',
    } as const;
    const shared = await Worker.create({
      ...common,
      taskQueue: deps.taskQueue,
      ...workflowSource(deps.workflowBundlePath),
      maxConcurrentActivityTaskExecutions: deps.maxConcurrentActivities ?? 4,
    });
    // Per sync at most a parse and a write wait here; the engine's thread pool bounds the parsing itself.
    const host = await Worker.create({
      ...common,
      taskQueue: workspaces.hostQueue,
      maxConcurrentActivityTaskExecutions: 4 * (deps.maxConcurrentActivities ?? 4),
    });
    return new SyncWorker(shared, host, workspaces);
  }

  /** This process's own task queue. */
  get hostQueue(): string {
    return this.workspaces.hostQueue;
  }

  getState() {
    return this.shared.getState();
  }

  async run(): Promise<void> {
    const stopBoth = () => {
      for (const w of [this.shared, this.host]) if (w.getState() === 'RUNNING') w.shutdown();
    };
    try {
      await Promise.all([this.shared.run().finally(stopBoth), this.host.run().finally(stopBoth)]);
    } finally {
      await this.workspaces.close();
    }
  }

  shutdown(): void {
    for (const w of [this.shared, this.host]) if (w.getState() === 'RUNNING') w.shutdown();
  }
}

export function createWorker(deps: WorkerDeps): Promise<SyncWorker> {
  return SyncWorker.create(deps);
}

export interface RunningWorker {
  worker: SyncWorker;
  /** Resolves when the worker has stopped. */
  done: Promise<void>;
  /** Readiness: the worker polls, the database and the Temporal server answer. */
  ready: Ready;
  /** Stops polling, lets running tasks finish (grace time), closes the pool, engine and connection. */
  shutdown(): Promise<void>;
}

/**
 * The Temporal SDK's own log (its TypeScript side and its core: worker state, bundling, failed activities, workflow
 * task failures) as lines of this process's JSON log, warnings and errors only; by default the SDK prints plain
 * text to the console. A process that installed a runtime before (tests) keeps it.
 */
function installSdkLogging(log: Logger): void {
  const sdk = log.child({ source: 'temporal_sdk' });
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry) => {
        const fields = { ...entry.meta, message: entry.message };
        if (entry.level === 'ERROR') sdk.error('temporal_sdk_log', fields);
        // The host queue's worker runs activities only, by design: the SDK's warning about it is not one here.
        else if (entry.message.startsWith('No workflows registered')) sdk.debug('temporal_sdk_log', fields);
        else sdk.warning('temporal_sdk_log', fields);
      }),
      telemetryOptions: {
        logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} },
      },
    });
  } catch {
    // Installed already: that runtime's logger stays.
  }
}

export async function startWorker(config: WorkerConfig, log: Logger): Promise<RunningWorker> {
  installSdkLogging(log);
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
    ...(config.TEMPORAL_WORKFLOW_BUNDLE ? { workflowBundlePath: config.TEMPORAL_WORKFLOW_BUNDLE } : {}),
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
  const ready = createReadiness({
    worker: () =>
      worker.getState() === 'RUNNING' ? Promise.resolve() : Promise.reject(new Error(`worker is ${worker.getState()}`)),
    database: databaseCheck(pool),
    temporal: temporalCheck(connection.workflowService),
  });
  return {
    worker,
    done,
    ready,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
