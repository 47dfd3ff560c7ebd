/**
 * A bounded concurrency gate with a bounded queue: at most `concurrency` tasks run, at most `queue` wait, and a
 * waiting task gives up after `queueTimeoutMs`. A full queue or an expired wait throws UnavailableError (503 with
 * Retry-After), so a burst is answered at once instead of piling up connections, sockets and memory.
 */
import { UnavailableError } from './errors.ts';

export interface LimiterOptions {
  /** What is limited, for messages: e.g. `summary`. */
  name: string;
  concurrency: number;
  queue: number;
  queueTimeoutMs: number;
}

export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly running: number;
  readonly waiting: number;
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

export function createLimiter(o: LimiterOptions): Limiter {
  let running = 0;
  const waiters: Waiter[] = [];
  // Mean task duration (exponential moving average), for the Retry-After estimate.
  let meanMs = 1000;

  const retryAfter = () =>
    Math.min(300, Math.max(1, Math.ceil(((waiters.length / o.concurrency + 1) * meanMs) / 1000)));

  const next = () => {
    running--;
    const w = waiters.shift();
    if (w) {
      clearTimeout(w.timer);
      w.start();
    }
  };

  async function execute<T>(task: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      return await task();
    } finally {
      meanMs = meanMs * 0.8 + (Date.now() - started) * 0.2;
      next();
    }
  }

  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      if (running < o.concurrency) {
        running++;
        return execute(task);
      }
      if (waiters.length >= o.queue) {
        return Promise.reject(
          new UnavailableError(
            `too many ${o.name} requests: ${running} running and ${waiters.length} waiting; retry later`,
            retryAfter(),
          ),
        );
      }
      return new Promise<T>((resolve, reject) => {
        const waiter: Waiter = {
          start: () => {
            running++;
            execute(task).then(resolve, reject);
          },
          timer: setTimeout(() => {
            const at = waiters.indexOf(waiter);
            if (at >= 0) waiters.splice(at, 1);
            reject(
              new UnavailableError(
                `the ${o.name} request waited ${Math.round(o.queueTimeoutMs / 1000)} s in the queue; retry later`,
                retryAfter(),
              ),
            );
          }, o.queueTimeoutMs),
        };
        waiters.push(waiter);
      });
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiters.length;
    },
  };
}
