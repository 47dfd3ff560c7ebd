/** Entry point of the graph component: `node --import tsx graph-api/main.ts`. */
import { createLogger } from '../lib/log.ts';
import { runMain } from '../lib/main.ts';
import { loadGraphConfig } from './config.ts';
import { startGraphApi } from './server.ts';

const log = createLogger('graph-api');

// The handle logs graph_api_started and, from close(), graph_api_stopped.
runMain({
  name: 'graph_api',
  log,
  closeLogsStopped: true,
  start: () => startGraphApi(loadGraphConfig(), log),
});
