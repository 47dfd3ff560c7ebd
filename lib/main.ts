/**
 * The process scaffolding of every entry point (`<component>/main.ts`): start the component, stop it cleanly on
 * SIGTERM or SIGINT (the first one; later ones are ignored while it stops), exit 0 after a clean stop and 1 when it
 * could not start, failed while running or failed to stop. Events, all on the given logger: `<name>_stopping { signal }`, `<name>_stopped { signal }`,
 * `<name>_stop_failed { error }`, `<name>_start_failed { error }` (or `failedEvent`), and `config_invalid
 * { variable, message }` for a bad environment variable where `configInvalid` is set. The `<name>_started` line,
 * with the component's own fields, is logged by `start` (or by the component's factory).
 */
import { ConfigError } from './errors.ts';
import type { Logger } from './log.ts';

export interface Running {
  close(): Promise<void>;
  /** Settles when the component ends on its own (the worker's run loop); a rejection is a failure: exit 1. */
  done?: Promise<unknown>;
}

export interface MainOptions {
  /** Prefix of the lifecycle events, e.g. `graph_api`. */
  name: string;
  log: Logger;
  start(): Promise<Running>;
  /** The event of a failed start or of `done` rejecting; default `<name>_start_failed`. */
  failedEvent?: string;
  /** Log a ConfigError as `config_invalid { variable, message }` instead of a failed start. */
  configInvalid?: boolean;
  /** close() logs `<name>_stopped` itself (with fields of its own). */
  closeLogsStopped?: boolean;
  /**
   * The bound of a stop: when close() has not finished after this long (a request that never ends, a wedged pool, a
   * dependency that does not answer), the process logs `<name>_stop_timed_out` and exits 1. Default 30 s (the
   * worker's activity grace time is 10 s).
   */
  stopTimeoutMs?: number;
}

export const DEFAULT_STOP_BOUND_MS = 30_000;

export function runMain(options: MainOptions): void {
  const { name, log } = options;
  const failedEvent = options.failedEvent ?? `${name}_start_failed`;
  const fail = (event: string, err: unknown) => {
    log.error(event, { error: err });
    process.exit(1);
  };
  // A start that throws before its first await (a bad variable) fails the same way as one that rejects.
  const started = Promise.resolve().then(() => options.start());

  // Installed before the start, so a signal is never met by the default action (the process killed at once): one
  // that arrives while the component starts stops it as soon as it has started.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info(`${name}_stopping`, { signal });
    const boundMs = options.stopTimeoutMs ?? DEFAULT_STOP_BOUND_MS;
    setTimeout(() => {
      log.error(`${name}_stop_timed_out`, { signal, ms: boundMs });
      process.exit(1);
    }, boundMs).unref();
    started.then(
      (running) =>
        running.close().then(
          () => {
            if (!options.closeLogsStopped) log.info(`${name}_stopped`, { signal });
            process.exit(0);
          },
          (err: unknown) => fail(`${name}_stop_failed`, err),
        ),
      () => {}, // a failed start is reported below
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  started.then(
    (running) => running.done?.catch((err: unknown) => fail(failedEvent, err)),
    (err: unknown) => {
      if (options.configInvalid && err instanceof ConfigError) {
        log.error('config_invalid', { variable: err.variable, message: err.message });
        process.exit(1);
      }
      fail(failedEvent, err);
    },
  );
}
