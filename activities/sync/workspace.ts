/**
 * The clones this worker process holds, one per sync: the checkout on local disk, the engine's walk of it (files in
 * batch order and the import index) and the analyses of parsed batches waiting to be written. Only this process can
 * use them, which is why every step that needs them runs on this process's own task queue (`hostQueue`, returned
 * by cloneRepository; the Temporal pattern for host-local files). When the process dies its queue has no poller:
 * the workflow sees a schedule-to-start timeout, clones again on another worker and resumes from the first batch
 * not yet written.
 *
 * A workspace is released by releaseWorkspace at the end of the batches, or when it has not been used for
 * IDLE_MS (a cancelled or terminated workflow that never released it).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { rm, rmdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import type { DiscoveredFile, FileAnalysis, ReusedFile, Tree } from '../engine/types.ts';
import type { ReuseContext } from './incremental.ts';
import { BATCH_FILES } from '../../workflows/sync-contract.ts';

export { BATCH_FILES };

const IDLE_MS = 60 * 60 * 1000;

export interface Workspace {
  syncId: string;
  dir: string;
  commitSha: string;
  commitAt: string;
  tree: Tree;
  /** Parsed batches not yet written, by batch index. */
  parsed: Map<number, FileAnalysis[]>;
  /** What this sync may reuse from its source's previous completed sync (incremental.ts). */
  reuse?: ReuseContext;
  /** Files of parsed batches that were reused instead of analysed, by batch index. */
  reused?: Map<number, ReusedFile[]>;
  lastUsed: number;
}

export function batchCount(files: number): number {
  // Batch 0 always exists: it also carries the tree-level issues of the walk.
  return Math.max(1, Math.ceil(files / BATCH_FILES));
}

export function batchFiles(ws: Workspace, batch: number): readonly DiscoveredFile[] {
  return ws.tree.files.slice(batch * BATCH_FILES, (batch + 1) * BATCH_FILES);
}

/** Thrown when a step reaches a worker that no longer holds the sync's clone: the workflow clones again. */
export function workspaceLost(syncId: string, what: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `this worker holds no clone of sync ${syncId} (${what}): clone again`,
    'WorkspaceLost',
  );
}

export class Workspaces {
  /** This process's own task queue: `<shared queue>@<host>-<pid>-<random>`. */
  readonly hostQueue: string;
  private readonly byId = new Map<string, Workspace>();
  private readonly root: string;
  private readonly sweep: NodeJS.Timeout;

  constructor(cloneDir: string, sharedQueue: string) {
    const id = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.hostQueue = `${sharedQueue}@${id}`;
    this.root = resolve(join(cloneDir, id));
    removeDeadSiblings(resolve(cloneDir));
    this.sweep = setInterval(() => void this.dropIdle(), 60_000);
    this.sweep.unref();
  }

  dirFor(syncId: string): string {
    return join(this.root, syncId);
  }

  put(ws: Workspace): void {
    this.byId.set(ws.syncId, ws);
  }

  get(syncId: string, what: string): Workspace {
    const ws = this.byId.get(syncId);
    if (!ws) throw workspaceLost(syncId, what);
    ws.lastUsed = Date.now();
    return ws;
  }

  async release(syncId: string): Promise<boolean> {
    const had = this.byId.delete(syncId);
    await rm(this.dirFor(syncId), { recursive: true, force: true });
    // The process's folder goes when it holds no clone (a concurrent clone may have just made it again: fine).
    if (this.byId.size === 0) await rmdir(this.root).catch(() => undefined);
    return had;
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    this.byId.clear();
    await rm(this.root, { recursive: true, force: true });
  }

  private async dropIdle(): Promise<void> {
    const now = Date.now();
    for (const ws of [...this.byId.values()]) {
      if (now - ws.lastUsed > IDLE_MS) await this.release(ws.syncId).catch(() => undefined);
    }
  }
}

/** Removes clone folders of processes of this host that are gone (killed workers leave theirs behind). */
function removeDeadSiblings(cloneDir: string): void {
  let names: string[];
  try {
    names = readdirSync(cloneDir);
  } catch {
    return;
  }
  const host = hostname();
  for (const name of names) {
    const m = /^(.*)-(\d+)-[0-9a-f]{6}$/.exec(name);
    if (!m || m[1] !== host) continue;
    if (isAlive(Number(m[2]))) continue;
    rmSync(join(cloneDir, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
