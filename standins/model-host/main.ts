/**
 * Entry point: `node --import tsx standins/model-host/main.ts`. Configuration from the environment (see
 * docs/standins.md); logs `model_host_started` with both URLs; stops cleanly on SIGTERM or SIGINT.
 */
import { createLogger } from '../../lib/log.ts';
import { modelHostConfigFromEnv } from './config.ts';
import { startModelHost } from './server.ts';

const logger = createLogger('model-host');

async function main(): Promise<void> {
  const config = modelHostConfigFromEnv();
  const host = await startModelHost(config, logger);
  logger.info('model_host_started', {
    embedding_url: host.embeddingUrl,
    chat_url: host.chatUrl,
    dim: config.dim,
    // Field names avoid "token": lib/log.ts redacts any key that contains it.
    chat_window: config.chatContextTokens,
    embedding_window: config.embeddingContextTokens,
    window_unit: 'estimated tokens (4 characters each)',
    bearer_required: config.apiKey !== '',
    faults: config.faults,
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    host.close().then(
      () => {
        logger.info('model_host_stopped', { signal });
        process.exit(0);
      },
      (err: unknown) => {
        logger.error('model_host_stop_failed', { err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  logger.error('model_host_start_failed', { err });
  process.exit(1);
});
