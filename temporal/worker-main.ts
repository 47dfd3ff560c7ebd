/** Process entry of the sync worker: `node --import tsx temporal/worker-main.ts` (env: docs/pipeline.md). */
import { createLogger } from '../lib/log.ts';
import { runMain } from '../lib/main.ts';
import { loadWorkerConfig } from './worker-config.ts';
import { startWorker } from './worker.ts';

const log = createLogger('worker');

runMain({
  name: 'worker',
  log,
  // A worker that cannot start or whose run loop fails logs worker_failed and exits 1.
  failedEvent: 'worker_failed',
  start: async () => {
    const config = loadWorkerConfig();
    const running = await startWorker(config, log);
    log.info('worker_started', {
      task_queue: config.TEMPORAL_TASK_QUEUE,
      host_queue: running.worker.hostQueue,
      namespace: config.TEMPORAL_NAMESPACE,
      temporal_address: config.TEMPORAL_ADDRESS,
      pid: process.pid,
    });
    return { close: () => running.shutdown(), done: running.done };
  },
});
