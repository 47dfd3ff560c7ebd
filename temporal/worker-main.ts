/** Process entry of the sync worker: `node --import tsx temporal/worker-main.ts` (env: docs/pipeline.md). */
import { createLogger } from '../lib/log.ts';
import { loadWorkerConfig } from './worker-config.ts';
import { startWorker } from './worker.ts';

const log = createLogger('worker');

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const running = await startWorker(config, log);
  log.info('worker_started', {
    task_queue: config.TEMPORAL_TASK_QUEUE,
    namespace: config.TEMPORAL_NAMESPACE,
    temporal_address: config.TEMPORAL_ADDRESS,
    pid: process.pid,
  });
  const stop = (signal: string) => {
    log.info('worker_stopping', { signal });
    running.shutdown().then(
      () => {
        log.info('worker_stopped', {});
        process.exit(0);
      },
      (err: unknown) => {
        log.error('worker_stop_failed', { error: err });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await running.done;
}

main().catch((err: unknown) => {
  log.error('worker_failed', { error: err });
  process.exit(1);
});
