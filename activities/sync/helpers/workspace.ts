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
import type { DiscoveredFile, FileAnalysis, ReusedFile, Tree } from '../../../engine/types.ts';
import type { ReuseContext } from '../../reuse/reuse-context.ts';
import type { EarlySymbols } from './early-symbols.ts';
import { BATCH_FILES } from '../../../workflows/sync-contract.ts';

export { BATCH_FILES };

const IDLE_MS = 60 * 60 * 1000;
/** Kept clones of sources (git-cache.ts): dropped after this long unused (and beyond WORKER_KEPT_CLONES). */
const CACHE_IDLE_MS = 24 * 60 * 60 * 1000;

interface SourceCache {
  dir: string;
  /** The sync using the clone now (its workspace's folder), if any. */
  holder: string | null;
  /** False while a sync updates it: a clone left so (a failed or interrupted update) is made again. */
  clean: boolean;
  lastUsed: number;
  /**
   * The engine's walk of the clone at its commit (files and import index), for the next sync of the same commit: the
   * walk (~50 ms for CPython's 2,400 files) and the import resolutions the index remembers are not redone. Keyed by
   * commit and the walk's options; dropped with the clone or when its files are rewritten.
   */
  tree?: { key: string; tree: Tree };
}

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
  /**
   * Regular files known (from git) to have the bytes the previous sync read: reused without reading them
   * (git-cache.ts); absent when unknown.
   */
  unchanged?: ReadonlySet<string>;
  /** The sync whose graph this one shares (an unchanged re-sync, graph-alias.ts): its batches write no graph rows. */
  graphOf?: string;
  /** Where each batch starts in `tree.files`, and the end (batchBounds); absent: every BATCH_FILES files. */
  bounds?: readonly number[];
  /** The symbol graph resolving on this worker while the batches are written (early-symbols.ts), if it can. */
  symbols?: EarlySymbols;
  lastUsed: number;
}

export function batchCount(files: number): number {
  // Batch 0 always exists: it also carries the tree-level issues of the walk.
  return Math.max(1, Math.ceil(files / BATCH_FILES));
}

/** Index in `tree.files` of the first file of a batch. */
export function batchStart(ws: Workspace, batch: number): number {
  return ws.bounds ? (ws.bounds[batch] ?? ws.tree.files.length) : batch * BATCH_FILES;
}

export function batchFiles(ws: Workspace, batch: number): readonly DiscoveredFile[] {
  return ws.tree.files.slice(batchStart(ws, batch), batchStart(ws, batch + 1));
}

/**
 * A tree of fewer than two batches' worth of files (1,000 at the default BATCH_FILES) is one write whatever its
 * make-up: two half-size writes would not pay for a second step.
 */
const MIN_SPLIT_BATCHES = 2;

export interface BatchPlan {
  /** The start of each batch in `files` and, last, the number of files. */
  bounds: number[];
  /** How many of the batches' writes may run at once (the workflow's `CloneResult.writeConcurrency`). */
  writeConcurrency: number;
}

/**
 * The batches of a tree and how many of their writes may run at once; `batchFiles` is the worker's batch size
 * (SYNC_BATCH_FILES, default BATCH_FILES). A tree whose files to analyse fit in one batch and that has at least two
 * batches' worth of files (MIN_SPLIT_BATCHES) is *light*: nearly all its writes are the rows and graph of
 * unchanged files, built inside the database by one statement after another on one connection (one core), while
 * nothing else runs. Such a tree is cut into an even number of batches of equal cost (at least two) whose writes run
 * two at a time, each in its own transaction, so the database works on both cores: the writes of an unchanged
 * CPython tree (2,450 files, 72,000 symbols) took 1.1-1.5 s on one connection and 0.7-1.0 s as two halves side by
 * side (docs/decisions.md, "Incremental syncs"). Any other tree keeps one write at a time (a full sync's parse threads
 * already fill the cores), with the bounds of `costBounds`.
 */
export function batchPlan(
  files: readonly DiscoveredFile[],
  light: (path: string) => { symbols: number } | undefined,
  batchFiles: number = BATCH_FILES,
): BatchPlan {
  const known = files.map((f) => light(f.path));
  const analysed = known.filter((k) => k === undefined).length;
  const costs = known.map((k) => (k ? 1 : 10));
  if (analysed > batchFiles || files.length < MIN_SPLIT_BATCHES * batchFiles) {
    return { bounds: costBounds(costs, batchFiles), writeConcurrency: 1 };
  }
  let n = Math.max(2, costBounds(costs, batchFiles).length - 1);
  if (n % 2 === 1) n++;
  // Writes that run side by side should end together: an unchanged file's write is its rows (about what five of its
  // symbols cost) and a Symbol vertex and a defines edge per symbol, so CPython's tree cut by file count gave halves
  // of 0.2 and 1.1 s (its tests hold most symbols); a file to analyse weighs about ten unchanged ones.
  const weights = known.map((k) => (k ? WRITE_FILE_WEIGHT + k.symbols : ANALYSED_WEIGHT));
  const total = weights.reduce((a, w) => a + w, 0);
  const bounds = [0];
  let cost = 0;
  weights.forEach((w, i) => {
    // Close a batch once it holds its share (the k-th batch ends near k/n of the total).
    if (cost >= (total * bounds.length) / n && bounds.length < n && i > bounds[bounds.length - 1]!) bounds.push(i);
    cost += w;
  });
  bounds.push(files.length);
  return { bounds, writeConcurrency: 2 };
}

/** An unchanged file's own rows (sync_files row, File vertex) in symbols' worth of writing. */
const WRITE_FILE_WEIGHT = 5;
/** A file to analyse, in the same unit (parse and all its rows: about ten unchanged files of ~30 symbols). */
const ANALYSED_WEIGHT = 350;

/**
 * Batch bounds when most files need no analysis: a batch closes at `batchFiles` files to analyse, a file known
 * unchanged counting a tenth (its rows and graph are copied inside the database: 5,000 of them cost about what 500
 * analysed files do), so an unchanged tree of 11,000 files is 3 batches instead of 23 (each one two activities).
 * Returns the start of each batch and, last, the number of files.
 */
function costBounds(costs: readonly number[], batchFiles: number): number[] {
  const bounds = [0];
  let cost = 0;
  costs.forEach((c, i) => {
    if (cost + c > batchFiles * 10 && i > bounds[bounds.length - 1]!) {
      bounds.push(i);
      cost = 0;
    }
    cost += c;
  });
  bounds.push(costs.length);
  return bounds;
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
  private readonly caches = new Map<string, SourceCache>();
  private readonly root: string;
  private readonly sweep: NodeJS.Timeout;

  constructor(
    cloneDir: string,
    sharedQueue: string,
    private readonly keptClones = 0,
  ) {
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
    this.byId.get(ws.syncId)?.symbols?.close();
    this.byId.set(ws.syncId, ws);
  }

  get(syncId: string, what: string): Workspace {
    const ws = this.byId.get(syncId);
    if (!ws) throw workspaceLost(syncId, what);
    ws.lastUsed = Date.now();
    return ws;
  }

  /**
   * Takes the kept clone of a source for a sync: its folder, and whether to start it afresh (new, or left unclean).
   * Null when another sync holds it (the caller clones afresh into the sync's own folder).
   */
  acquireCache(sourceId: string, syncId: string): { dir: string; reset: boolean } | null {
    if (this.keptClones <= 0) return null;
    let c = this.caches.get(sourceId);
    if (c?.holder && c.holder !== syncId) return null;
    if (!c) {
      this.evictCaches(this.keptClones - 1);
      c = { dir: join(this.root, 'sources', sourceId), holder: null, clean: false, lastUsed: 0 };
      this.caches.set(sourceId, c);
    }
    const reset = !c.clean;
    if (reset) delete c.tree;
    c.holder = syncId;
    c.clean = false;
    c.lastUsed = Date.now();
    return { dir: c.dir, reset };
  }

  /** The kept clone is at a commit, whole (its update finished). */
  cacheReady(sourceId: string): void {
    const c = this.caches.get(sourceId);
    if (c) c.clean = true;
  }

  /** The walk of a source's kept clone recorded under `key` (commit and walk options), if its files are unchanged. */
  keptTree(sourceId: string, key: string): Tree | undefined {
    const t = this.caches.get(sourceId)?.tree;
    return t?.key === key ? t.tree : undefined;
  }

  /** Records the walk of a source's kept clone (see SourceCache.tree). */
  keepTree(sourceId: string, key: string, tree: Tree): void {
    const c = this.caches.get(sourceId);
    if (c) c.tree = { key, tree };
  }

  /** The sync holding a source's kept clone, if any. */
  cacheHolder(sourceId: string): string | null {
    return this.caches.get(sourceId)?.holder ?? null;
  }

  async release(syncId: string): Promise<boolean> {
    this.byId.get(syncId)?.symbols?.close();
    const had = this.byId.delete(syncId);
    for (const [sourceId, c] of this.caches) {
      if (c.holder !== syncId) continue;
      c.holder = null;
      c.lastUsed = Date.now();
      if (!c.clean) {
        this.caches.delete(sourceId);
        await rm(c.dir, { recursive: true, force: true });
      }
    }
    await rm(this.dirFor(syncId), { recursive: true, force: true });
    // The process's folder goes when it holds no clone (a concurrent clone may have just made it again: fine).
    if (this.byId.size === 0) await rmdir(this.root).catch(() => undefined);
    return had;
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    for (const ws of this.byId.values()) ws.symbols?.close();
    this.byId.clear();
    this.caches.clear();
    await rm(this.root, { recursive: true, force: true });
  }

  private async dropIdle(): Promise<void> {
    const now = Date.now();
    for (const ws of [...this.byId.values()]) {
      if (now - ws.lastUsed > IDLE_MS) await this.release(ws.syncId).catch(() => undefined);
    }
    for (const [sourceId, c] of [...this.caches]) {
      if (c.holder === null && now - c.lastUsed > CACHE_IDLE_MS) this.dropCache(sourceId, c);
    }
  }

  /** Drops the least recently used kept clones nobody holds until at most `keep` remain. */
  private evictCaches(keep: number): void {
    const idle = [...this.caches].filter(([, c]) => c.holder === null).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [sourceId, c] of idle) {
      if (this.caches.size <= keep) break;
      this.dropCache(sourceId, c);
    }
  }

  private dropCache(sourceId: string, c: SourceCache): void {
    this.caches.delete(sourceId);
    void rm(c.dir, { recursive: true, force: true }).catch(() => undefined);
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
