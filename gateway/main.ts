/**
 * Entry point: `node --import tsx gateway/main.ts`. Reads the environment (a bad variable is named and the process
 * exits 1), starts the gateway on PORT (8080), and stops cleanly on SIGTERM or SIGINT.
 */
import { ConfigError } from '../lib/errors.ts';
import { createLogger } from '../lib/log.ts';
import { loadGatewayConfig } from './config.ts';
import { createGateway } from './gateway.ts';

const log = createLogger('gateway');

async function main(): Promise<void> {
  let config;
  try {
    config = loadGatewayConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      log.error('config_invalid', { variable: err.variable, message: err.message });
      process.exit(1);
    }
    throw err;
  }
  const gateway = await createGateway(config, { log });
  const stop = (signal: string) => {
    log.info('gateway_stopping', { signal });
    gateway.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('gateway_stop_failed', { error: err });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  log.error('gateway_start_failed', { error: err });
  process.exit(1);
});
