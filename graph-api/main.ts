/** Entry point of the graph component: `node --import tsx graph-api/main.ts`. */
import { createLogger } from '../lib/log.ts';
import { loadGraphConfig } from './config.ts';
import { startGraphApi } from './server.ts';

const log = createLogger('graph-api');

async function main(): Promise<void> {
  const config = loadGraphConfig();
  const handle = await startGraphApi(config, log);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('graph_api_stopping', { signal });
    handle.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('graph_api_stop_failed', { error: err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  log.error('graph_api_start_failed', { error: err });
  process.exit(1);
});
