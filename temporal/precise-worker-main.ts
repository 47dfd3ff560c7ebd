/**
 * Process entry of a precise worker (issue 29): `node --import tsx temporal/precise-worker-main.ts` (env:
 * temporal/precise-worker-config.ts, docs/precise.md). Serves /metrics, /ready and /health on METRICS_PORT.
 */
import { NativeConnection } from '@temporalio/worker';
import { createPool } from '../lib/db.ts';
import { createLogger } from '../lib/log.ts';
import { runMain } from '../lib/main.ts';
import { startOpsServer } from '../lib/ops-routes.ts';
import { createReadiness, databaseCheck, temporalCheck } from '../lib/readiness.ts';
import { loadPreciseWorkerConfig, preciseSettings } from './precise-worker-config.ts';
import { PreciseWorker } from './precise-worker.ts';

const log = createLogger('precise-worker');

runMain({
  name: 'precise-worker',
  log,
  failedEvent: 'worker_failed',
  start: async () => {
    const config = loadPreciseWorkerConfig();
    const pool = createPool(config.DATABASE_URL, {
      max: config.DATABASE_POOL_SIZE,
      applicationName: 'ckg-precise-worker',
      acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_SECONDS * 1000,
      log,
    });
    const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
    const worker = await PreciseWorker.create({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      pool,
      log,
      settings: preciseSettings(config),
      queuePrefix: config.PRECISE_QUEUE_PREFIX,
      languages: config.PRECISE_LANGUAGES.split(',')
        .map((x) => x.trim())
        .filter(Boolean),
      maxConcurrent: config.PRECISE_MAX_CONCURRENT,
    });
    const done = worker.run().finally(async () => {
      await pool.end();
      await connection.close();
    });
    const ready = createReadiness({
      worker: () =>
        worker.getState() === 'RUNNING'
          ? Promise.resolve()
          : Promise.reject(new Error(`worker is ${worker.getState()}`)),
      database: databaseCheck(pool),
      temporal: temporalCheck(connection.workflowService),
    });
    const ops = await startOpsServer(config.METRICS_PORT, config.METRICS_HOST, ready).catch(async (err: unknown) => {
      worker.shutdown();
      await done;
      throw err;
    });
    log.info('precise_worker_started', {
      identity: worker.identity,
      task_queues: worker.queues,
      namespace: config.TEMPORAL_NAMESPACE,
      metrics_port: ops.port,
      allow_dependencies: config.PRECISE_ALLOW_DEPENDENCIES,
    });
    return {
      close: async () => {
        await ops.close();
        worker.shutdown();
        await done;
      },
      done: done.finally(() => ops.close()),
    };
  },
});
