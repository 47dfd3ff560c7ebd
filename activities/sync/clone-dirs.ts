/**
 * Clone folders: each worker process clones under a folder of its own, `<WORKER_CLONE_DIR>/w-<pid>`, and at start-up
 * removes the folders of worker processes that no longer exist (killed with -9, crashed, the machine restarted) and
 * the clones of the former flat layout (`<sync id>-<attempt>`). Before, the clones of failed or killed attempts stayed
 * on disk for good. A folder whose process is alive (another worker on this machine) is left alone.
 */
import { readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from '../../lib/log.ts';

const OWN = /^w-(\d+)$/;
const FLAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d+$/i;

export function workerCloneDir(base: string, pid = process.pid): string {
  return resolve(join(base, `w-${pid}`));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the clone folders of dead workers under `base`; returns the names removed. */
export async function sweepCloneDirs(base: string, log: Logger, self = process.pid): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(base);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const own = OWN.exec(name);
    const stale = own ? Number(own[1]) !== self && !alive(Number(own[1])) : FLAT.test(name);
    if (!stale) continue;
    try {
      await rm(join(base, name), { recursive: true, force: true });
      removed.push(name);
    } catch (err) {
      log.warning('clone_sweep_failed', { dir: join(base, name), error: err });
    }
  }
  if (removed.length > 0) log.info('clone_dirs_swept', { base: resolve(base), removed: removed.length });
  return removed;
}
