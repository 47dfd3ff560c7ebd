/**
 * Process entry of the ingestion component (port 8081): `node --import tsx temporal/ingestion-main.ts`.
 * Reads and validates its environment (the error names the bad variable), logs `ingestion_started`, and shuts
 * down cleanly on SIGTERM / SIGINT.
 */
import { createLogger } from '../lib/log.ts';
import { runMain } from '../lib/main.ts';
import { loadIngestionConfig } from './ingestion/config.ts';
import { start } from './ingestion/server.ts';

// Its level comes from LOG_LEVEL, the variable the component's config validates.
const log = createLogger('ingestion');

runMain({
  name: 'ingestion',
  log,
  configInvalid: true,
  start: async () => {
    const config = loadIngestionConfig();
    const running = await start(config, log);
    log.info('ingestion_started', {
      port: running.port,
      temporal_address: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      task_queue: config.TEMPORAL_TASK_QUEUE,
    });
    return running;
  },
});
