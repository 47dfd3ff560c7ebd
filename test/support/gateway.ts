/** Runs the gateway in-process on port 0 with captured logs. */
import { createLogger } from '../../lib/log.ts';
import { loadGatewayConfig } from '../../gateway/config.ts';
import { createGateway, type Gateway, type GatewayDeps } from '../../gateway/gateway.ts';

export interface LogLine {
  level: string;
  event: string;
  [k: string]: unknown;
}

export interface TestGateway extends Gateway {
  logs: LogLine[];
  events(name: string): LogLine[];
}

export async function startGateway(
  env: Record<string, string>,
  deps: Omit<GatewayDeps, 'log'> = {},
): Promise<TestGateway> {
  const logs: LogLine[] = [];
  const log = createLogger('gateway', {
    level: 'debug',
    write: (line) => logs.push(JSON.parse(line) as LogLine),
  });
  const config = loadGatewayConfig({ APP_PORT: '0', APP_HOST: '127.0.0.1', METRICS_PORT: '0', ...env });
  const gw = await createGateway(config, { ...deps, log });
  return Object.assign(gw, { logs, events: (name: string) => logs.filter((l) => l.event === name) });
}
