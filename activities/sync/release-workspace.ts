/**
 * releaseWorkspace: removes the clone and the parsed batches this worker holds for a sync, once every batch is
 * written (or the sync ended). Runs on the worker that holds them; best effort: a worker that is gone already lost
 * them, and idle workspaces are dropped after an hour anyway.
 */
import type { SyncIds } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './helpers/deps.ts';

export function createReleaseWorkspace({ workspaces }: ActivityDeps) {
  async function releaseWorkspace({ syncId }: SyncIds): Promise<{ released: boolean }> {
    return { released: await workspaces.release(syncId) };
  }
  return { releaseWorkspace };
}
