/**
 * Entry point: `node --import tsx gateway/main.ts`. Reads the environment (a bad variable is named and the process
 * exits 1), starts the gateway on PORT (8080), and stops cleanly on SIGTERM or SIGINT.
 */
import { createLogger } from '../lib/log.ts';
import { runMain } from '../lib/main.ts';
import { loadGatewayConfig } from './config.ts';
import { createGateway } from './gateway.ts';

const log = createLogger('gateway');

// The gateway logs gateway_started and, from close(), gateway_stopped.
runMain({
  name: 'gateway',
  log,
  configInvalid: true,
  closeLogsStopped: true,
  start: () => createGateway(loadGatewayConfig(), { log }),
});
