/**
 * Process entry of the ingestion component (port 8081): `node --import tsx temporal/ingestion-main.ts`.
 * Reads and validates its environment (the error names the bad variable), logs `ingestion_started`, and shuts
 * down cleanly on SIGTERM / SIGINT.
 */
import { createLogger, parseLevel } from '../lib/log.ts';
import { ConfigError } from '../lib/errors.ts';
import { loadIngestionConfig } from './ingestion/config.ts';
import { start } from './ingestion/server.ts';

const bootLog = createLogger('ingestion');

async function main(): Promise<void> {
  const config = loadIngestionConfig();
  const log = createLogger('ingestion', { level: parseLevel(config.LOG_LEVEL) });
  const running = await start(config, log);
  log.info('ingestion_started', {
    port: running.port,
    temporal_address: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    task_queue: config.TEMPORAL_TASK_QUEUE,
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('ingestion_stopping', { signal });
    running.close().then(
      () => {
        log.info('ingestion_stopped', {});
        process.exit(0);
      },
      (err: unknown) => {
        log.error('ingestion_stop_failed', { error: err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) bootLog.error('config_invalid', { variable: err.variable, message: err.message });
  else bootLog.error('ingestion_start_failed', { error: err });
  process.exit(1);
});
