/**
 * The project's model-host stand-in (standins/model-host), started in-process for sync tests, with its request log
 * observed as it is written: `failNext(n)` turns the failure rate of an endpoint to 1 and back to 0 at the moment
 * the n-th injected failure is recorded (before its answer is sent), so exactly n requests fail, whatever the
 * timing of the caller's retries.
 */
import { createLogger } from '../../lib/log.ts';
import type { FailureMode, ModelHostConfig } from '../../standins/model-host/config.ts';
import {
  startModelHost,
  type Endpoint,
  type ModelHost,
  type RequestLogEntry,
} from '../../standins/model-host/server.ts';

export interface ObservedModelHost extends ModelHost {
  /**
   * Fails the next `n` requests of `endpoint` (503 by default, or a dropped connection with `reset`); resolves
   * once they have been served.
   */
  failNext(n: number, mode?: FailureMode, endpoint?: Endpoint): Promise<void>;
}

export async function startObservedModelHost(overrides: Partial<ModelHostConfig> = {}): Promise<ObservedModelHost> {
  const watchers = new Set<(entry: RequestLogEntry) => void>();
  const logger = createLogger('model-host', {
    level: 'debug',
    write: (line) => {
      if (watchers.size === 0) return;
      const record = JSON.parse(line) as { event?: string } & RequestLogEntry;
      if (record.event === 'model_request') for (const w of [...watchers]) w(record);
    },
  });
  const host = await startModelHost(overrides, logger);
  return {
    ...host,
    failNext(n, mode = 'status', endpoint = 'embeddings') {
      if (n <= 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        let served = 0;
        const watch = (entry: RequestLogEntry) => {
          if (entry.endpoint !== endpoint) return;
          if (entry.outcome !== 'injected_failure' && entry.outcome !== 'injected_reset') return;
          if (++served < n) return;
          host.setFaults({ failureRate: 0 }, endpoint);
          watchers.delete(watch);
          resolve();
        };
        watchers.add(watch);
        host.setFaults({ failureRate: 1, failureMode: mode }, endpoint);
      });
    },
  };
}
