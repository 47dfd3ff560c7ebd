/**
 * The watcher: every WATCH_INTERVAL_SECONDS (default 2) the ingestion component compares the database with what
 * operators may have changed in the Temporal UI or CLI behind the API's back, so what the API says is true within
 * seconds: active runs whose workflow ended without recording it (a Terminate, a Cancel of a run that never began;
 * syncs/reconcile.ts) are ended with the operator's reason, and schedules paused, unpaused or deleted in Temporal are
 * adopted or reported (schedules/watch.ts). A pass that fails is logged; the next one runs on time; passes never
 * overlap.
 */
import type { IngestionDeps } from './deps.ts';
import { scheduleWatch } from './schedules/watch.ts';
import { reconcileAll } from './syncs/reconcile.ts';

export interface Watcher {
  /** Runs one pass now (after the one in progress, if any). */
  pass(): Promise<void>;
  stop(): Promise<void>;
}

export function startWatcher(deps: IngestionDeps, intervalMs: number, graceMs: number): Watcher {
  const schedules = scheduleWatch(deps);
  let current: Promise<void> = Promise.resolve();
  let stopped = false;

  async function once(): Promise<void> {
    try {
      const ended = await reconcileAll(deps, graceMs);
      const adopted = await schedules.pass();
      if (ended > 0 || adopted > 0) deps.log.info('watch_pass', { runs_ended: ended, schedules_adopted: adopted });
    } catch (err) {
      deps.log.warning('watch_failed', { error: err });
    }
  }

  function pass(): Promise<void> {
    current = current.then(once);
    return current;
  }

  let timer: NodeJS.Timeout | undefined;
  if (intervalMs > 0) {
    let busy = false;
    timer = setInterval(() => {
      if (stopped || busy) return;
      busy = true;
      void pass().finally(() => {
        busy = false;
      });
    }, intervalMs);
    timer.unref();
  }
  return {
    pass,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
