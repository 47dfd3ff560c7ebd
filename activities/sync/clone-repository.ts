/**
 * cloneRepository: the first step of a sync, and the step a resumed sync starts again with on another worker. Takes
 * any worker of the shared queue; that worker fetches the ref (depth 1) into its own disk, walks the tree once
 * (engine.openTree: files in batch order, the import index) and keeps both in its Workspaces. It answers its own
 * task queue (`hostQueue`): parseBatch and writeBatch go there, to the worker that holds the clone.
 *
 * A worker keeps the clone of each source it synced (git-cache.ts): the next sync of the source on that worker
 * fetches only what the new commit adds, rewrites only the files that changed, and learns from git which files the
 * previous sync read with the same bytes (reused without reading them; their batches are larger, and their writes
 * may run two at a time: batchPlan).
 *
 * `fresh` (the run's first clone) removes whatever an earlier attempt or run left (rows, graph, issues, step
 * ledger); a resumed clone keeps the steps already written and fetches the commit the run started on. A clone that
 * fails records one issue (phase cloning) and fails the run at once (CloneFailed, not retried: a bad token or URL
 * will not heal).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { RunWithSource } from '../../lib/sync-runs/index.ts';
import type { Tree } from '../../engine/types.ts';
import { pluginForExtension } from '../../engine/languages/registry.ts';
import { recordIssues } from '../store/index.ts';
import type { CloneInput, CloneResult } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './helpers/deps.ts';
import { CloneError, checkoutRef, displayUrl } from './helpers/git-checkout.ts';
import { startHeartbeat, type Heartbeat } from './helpers/heartbeat.ts';
import { ProgressReporter } from './helpers/progress.ts';
import { resetSyncData } from '../store/reset.ts';
import { claimRun } from './helpers/run-claim.ts';
import { loadAccessToken } from '../store/secrets.ts';
import { runIsActive } from '../store/runs.ts';
import { batchPlan } from './helpers/workspace.ts';
import { prepareReuse, recordReuse, type PendingReuse } from '../reuse/incremental.ts';
import { updateCachedCheckout } from './helpers/git-cache.ts';
import { shareGraph, sharesGraph } from '../graph-alias.ts';
import { graphAlias } from '../store/shared-graph.ts';

function includePaths(config: Record<string, unknown>): string[] | undefined {
  const v = config.include_paths;
  if (!Array.isArray(v)) return undefined;
  const paths = v.filter((x): x is string => typeof x === 'string' && x !== '');
  return paths.length > 0 ? paths : undefined;
}

/**
 * The source's kept clone for this sync, or null when another sync of the source still runs with it. A holder whose
 * run has ended (cancelled or failed without releasing it) gives it up.
 */
async function acquireCache(
  { pool, workspaces }: ActivityDeps,
  sourceId: string,
  syncId: string,
): Promise<{ dir: string; reset: boolean } | null> {
  const holder = workspaces.cacheHolder(sourceId);
  if (holder && holder !== syncId) {
    if (!(await runIsActive(pool, holder))) await workspaces.release(holder);
  }
  return workspaces.acquireCache(sourceId, syncId);
}

/** The commit checked out, and how: the worker's kept clone of the source (git-cache.ts) or a fresh one. */
interface Checkout {
  head: { commitSha: string; commitAt: string; skipped: Array<{ path: string; reason: string }> };
  dir: string;
  cached: boolean;
  /** False when the kept clone's files were already the commit's (its walk may be reused). */
  rewritten: boolean;
  edits?: { since: string; paths: ReadonlySet<string> };
  /** Files whose bytes equal the previous sync's commit (from git), when known. */
  unchanged?: ReadonlySet<string>;
}

/**
 * Fetches the ref: into the source's kept clone on this worker, brought to the new commit, or a fresh clone. A
 * clone that fails records one issue (phase cloning) and fails the run (CloneFailed, not retried).
 */
async function checkout(
  deps: ActivityDeps,
  o: { syncId: string; sourceId: string; url: string; ref: string; previousCommit: string | null; hb: Heartbeat },
): Promise<Checkout> {
  const { pool, settings, workspaces } = deps;
  const { syncId, sourceId, url, ref } = o;
  try {
    const token = await loadAccessToken(pool, sourceId);
    const request = {
      url,
      ref,
      token,
      urls: settings.sourceUrls,
      timeoutMs: settings.cloneTimeoutMs,
      signal: o.hb.signal,
    };
    const cache = await acquireCache(deps, sourceId, syncId);
    const kept = cache ? await updateCachedCheckout({ ...request, ...cache, previousCommit: o.previousCommit }) : null;
    if (cache && kept) {
      workspaces.cacheReady(sourceId);
      return {
        head: { ...kept, skipped: [] },
        dir: cache.dir,
        cached: true,
        rewritten: kept.rewritten,
        ...(kept.edits ? { edits: kept.edits } : {}),
        ...(kept.unchanged ? { unchanged: kept.unchanged } : {}),
      };
    }
    if (cache) await workspaces.release(syncId);
    const dir = workspaces.dirFor(syncId);
    return { head: await checkoutRef({ ...request, dir }), dir, cached: false, rewritten: true };
  } catch (err) {
    await workspaces.release(syncId);
    o.hb.check();
    if (!(err instanceof CloneError)) throw err;
    const message = `cloning ${displayUrl(url)} at ${ref} failed: ${err.message}`;
    await recordIssues(pool, syncId, [
      { level: 'error', phase: 'cloning', code: err.code, message, context: { url: displayUrl(url), ref } },
    ]);
    throw ApplicationFailure.nonRetryable(message, 'CloneFailed');
  }
}

/** A path the file system cannot hold was left out of the checkout (git-checkout.ts): one issue per file. */
async function recordSkipped(deps: ActivityDeps, syncId: string, skipped: Checkout['head']['skipped']): Promise<void> {
  if (skipped.length === 0) return;
  await recordIssues(
    deps.pool,
    syncId,
    skipped.map((f) => ({
      level: 'warning' as const,
      phase: 'cloning',
      code: 'path_unrepresentable',
      message: `${f.reason}: the file was left out of the checkout and is not indexed`,
      file_path: f.path,
    })),
  );
}

/**
 * The tree's walk (files in batch order, the import index): the kept clone's walk when its files were not rewritten
 * since (same commit, same walk options), refreshed when the checkout only edited files' contents since the walk's
 * commit (engine.refreshTree), else walked.
 */
function walkTree(
  deps: ActivityDeps,
  sourceId: string,
  run: RunWithSource,
  c: Checkout,
): { tree: Tree; walked: NonNullable<CloneResult['walk']> } {
  const { engine, workspaces } = deps;
  const walk = { includePaths: includePaths(run.config_snapshot) };
  const walkKey = (commit: string) => `${commit}\0${JSON.stringify(walk.includePaths ?? [])}`;
  let tree = c.cached && !c.rewritten ? workspaces.keptTree(sourceId, walkKey(c.head.commitSha)) : undefined;
  let walked: NonNullable<CloneResult['walk']> = tree ? 'kept' : 'walked';
  if (!tree && c.cached && c.edits) {
    const before = workspaces.keptTree(sourceId, walkKey(c.edits.since));
    tree = (before && engine.refreshTree(before, c.edits.paths)) || undefined;
    if (tree) walked = 'refreshed';
  }
  if (!tree) tree = engine.openTree(c.dir, walk);
  if (c.cached) workspaces.keepTree(sourceId, walkKey(c.head.commitSha), tree);
  return { tree, walked };
}

/**
 * The run's batches (batchPlan: files whose analysis is reused make larger batches) recorded with the reuse plan,
 * and the workspace the parse and write steps use on this worker. Returns the bounds and the plan's write
 * concurrency.
 */
async function planBatches(
  deps: ActivityDeps,
  syncId: string,
  c: Checkout,
  tree: Tree,
  pending: PendingReuse,
  precise: boolean,
): Promise<{ bounds: number[]; writeConcurrency: number; graphOf: string | null }> {
  const reuse = await pending.context;
  const reusable = reuse.plan.reusable;
  const plan = batchPlan(
    tree.files,
    (p) => (c.unchanged?.has(p) === true ? reusable.get(p) : undefined),
    deps.settings.batchFiles,
  );
  const firstRecord = !reuse.recorded;
  const bounds = await recordReuse(deps.pool, syncId, reuse, plan.bounds);
  if (bounds[bounds.length - 1] !== tree.files.length) {
    throw new Error(`the run's batches cover ${bounds.at(-1)} files, the clone has ${tree.files.length}`);
  }
  // An unchanged re-sync shares its predecessor's graph (graph-alias.ts), decided once, at the run's first clone.
  const paths = tree.files.map((f) => f.path);
  const graphOf = !firstRecord
    ? await graphAlias(deps.pool, syncId)
    : sharesGraph(reuse.plan, c.head.commitSha, paths)
      ? await shareGraph(deps.pool, syncId, reuse.plan.previousSyncId!, { precise })
      : null;
  deps.workspaces.put({
    reuse,
    reused: new Map(),
    syncId,
    dir: c.dir,
    commitSha: c.head.commitSha,
    commitAt: c.head.commitAt,
    tree,
    parsed: new Map(),
    ...(c.unchanged ? { unchanged: c.unchanged } : {}),
    ...(graphOf ? { graphOf } : {}),
    bounds,
    lastUsed: Date.now(),
  });
  // A resumed clone keeps the run's recorded bounds; their writes run two at a time only if they are the plan's.
  return { bounds, writeConcurrency: sameBounds(bounds, plan.bounds) ? plan.writeConcurrency : 1, graphOf };
}

/**
 * The languages of a tree's files by extension (plugin ids, sorted): what the precise tier is planned from before the
 * parse. The parse's classification also reads shebang lines and tells C++ headers apart; neither matters for the
 * precise tier's languages (its indexers read files by extension too).
 */
export function treeLanguages(tree: Tree): string[] {
  const out = new Set<string>();
  for (const f of tree.files) {
    const name = f.path.slice(f.path.lastIndexOf('/') + 1);
    const dot = name.lastIndexOf('.');
    const plugin = dot > 0 ? pluginForExtension(name.slice(dot)) : undefined;
    if (plugin) out.add(plugin.id);
  }
  return [...out].sort();
}

export function createCloneRepository(deps: ActivityDeps) {
  const { pool, settings, log, workspaces } = deps;
  async function cloneRepository(input: CloneInput): Promise<CloneResult> {
    const { syncId, sourceId } = input;
    const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
    const progress = new ProgressReporter(pool, syncId, sourceId, settings.progressIntervalMs, log);
    const t = Date.now();
    try {
      const run = await claimRun(pool, input);
      if (input.fresh) await resetSyncData(pool, syncId);
      await progress.phase('cloning', 1);
      const ref = input.commitSha ?? (run.ref || run.default_branch);
      const url = run.source_url ?? '';
      await workspaces.release(syncId);
      const pending = await prepareReuse(pool, deps, {
        syncId,
        sourceId,
        config: run.config_snapshot,
        embeddingsOn: run.config_snapshot.embeddings !== false,
      });
      const c = await checkout(deps, {
        syncId,
        sourceId,
        url,
        ref,
        previousCommit: pending.previous.previousCommit,
        hb,
      });
      hb.check();
      await recordSkipped(deps, syncId, c.head.skipped);
      const { tree, walked } = walkTree(deps, sourceId, run, c);
      const { bounds, writeConcurrency, graphOf } = await planBatches(
        deps,
        syncId,
        c,
        tree,
        pending,
        settings.precise !== false && run.config_snapshot.precise !== false,
      );
      progress.report('cloning', 1, 1);
      await progress.flush();
      log.info('sync_cloned', {
        sync_id: syncId,
        source_id: sourceId,
        commit: c.head.commitSha,
        files: tree.files.length,
        host_queue: workspaces.hostQueue,
        resumed: !input.fresh,
        kept_clone: c.cached,
        walked,
        known_unchanged: c.unchanged?.size ?? null,
        graph_of: graphOf,
        ms: Date.now() - t,
      });
      return {
        hostQueue: workspaces.hostQueue,
        commitSha: c.head.commitSha,
        commitAt: c.head.commitAt,
        files: tree.files.length,
        batches: bounds.length - 1,
        bounds,
        walk: walked,
        languages: treeLanguages(tree),
        ...(writeConcurrency > 1 ? { writeConcurrency } : {}),
      };
    } finally {
      hb.stop();
    }
  }
  return { cloneRepository };
}

function sameBounds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
