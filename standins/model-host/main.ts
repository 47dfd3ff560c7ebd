/**
 * Entry point: `node --import tsx standins/model-host/main.ts`. Configuration from the environment (see
 * docs/standins.md); logs `model_host_started` with both URLs; stops cleanly on SIGTERM or SIGINT.
 */
import { createLogger } from '../../lib/log.ts';
import { runMain } from '../../lib/main.ts';
import { modelHostConfigFromEnv } from './config.ts';
import { startModelHost } from './server.ts';

const logger = createLogger('model-host');

runMain({
  name: 'model_host',
  log: logger,
  start: async () => {
    const config = modelHostConfigFromEnv();
    const host = await startModelHost(config, logger);
    logger.info('model_host_started', {
      embedding_url: host.embeddingUrl,
      chat_url: host.chatUrl,
      dim: config.dim,
      embedding_model: config.embeddingModel,
      // Field names avoid "token": lib/log.ts redacts any key that contains it.
      chat_window: config.chatContextTokens,
      embedding_window: config.embeddingContextTokens,
      window_unit: 'estimated tokens (4 characters each)',
      bearer_required: config.apiKey !== '',
      faults: config.faults,
    });
    return host;
  },
});
