/**
 * An entry point made of lib/main.ts `runMain` and a trivial component, for test/unit/main.test.ts. FIXTURE_MODE
 * picks how the component behaves: `ok`, `ok-logs-stopped` (its close logs fixture_stopped itself), `start-rejects`,
 * `config` / `config-named` (start throws a ConfigError synchronously; `config-named` sets configInvalid),
 * `close-rejects`, `done-rejects` (the run loop fails a moment after the start), `slow-start` (logs
 * fixture_starting, then starts 300 ms later), `close-hangs` (close() never settles; the stop bound is 300 ms).
 */
import { ConfigError } from '../../lib/errors.ts';
import { createLogger } from '../../lib/log.ts';
import { runMain, type Running } from '../../lib/main.ts';

const mode = process.env.FIXTURE_MODE ?? 'ok';
const log = createLogger('fixture', { level: 'info' });

function component(): Running {
  // Keeps the process alive until it is stopped.
  const timer = setInterval(() => {}, 60_000);
  log.info('fixture_started', { pid: process.pid });
  return {
    close: () => {
      clearInterval(timer);
      if (mode === 'close-rejects') return Promise.reject(new Error('cannot drain'));
      if (mode === 'close-hangs') return new Promise<void>(() => setInterval(() => {}, 60_000));
      if (mode === 'ok-logs-stopped') log.info('fixture_stopped', { by: 'close' });
      return Promise.resolve();
    },
    ...(mode === 'done-rejects'
      ? { done: new Promise((_, reject) => setTimeout(() => reject(new Error('run loop failed')), 200)) }
      : {}),
  };
}

runMain({
  name: 'fixture',
  log,
  configInvalid: mode === 'config-named',
  closeLogsStopped: mode === 'ok-logs-stopped',
  ...(mode === 'close-hangs' ? { stopTimeoutMs: 300 } : {}),
  failedEvent: mode === 'done-rejects' ? 'fixture_failed' : undefined,
  start: () => {
    if (mode.startsWith('config')) throw new ConfigError('FIXTURE_PORT', 'must be an integer');
    if (mode === 'start-rejects') return Promise.reject(new Error('cannot listen'));
    if (mode === 'slow-start') {
      log.info('fixture_starting', {});
      return new Promise((resolve) => setTimeout(() => resolve(component()), 300));
    }
    return Promise.resolve(component());
  },
});
