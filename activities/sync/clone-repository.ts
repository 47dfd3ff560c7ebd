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
import { recordIssues } from '../store/index.ts';
import type { CloneInput, CloneResult } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './deps.ts';
import { CloneError, checkoutRef, displayUrl } from './git-checkout.ts';
import { startHeartbeat } from './heartbeat.ts';
import { ProgressReporter } from './progress.ts';
import { resetSyncData } from './reset.ts';
import { claimRun } from './run-claim.ts';
import { loadAccessToken } from './access-token.ts';
import { batchPlan } from './workspace.ts';
import { prepareReuse, recordReuse } from './incremental.ts';
import { updateCachedCheckout } from './git-cache.ts';

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
    const r = await pool.query(`SELECT 1 FROM sync_runs WHERE id = $1 AND status IN ('pending', 'running')`, [holder]);
    if (r.rowCount === 0) await workspaces.release(holder);
  }
  return workspaces.acquireCache(sourceId, syncId);
}

export function createCloneRepository(deps: ActivityDeps) {
  const { pool, engine, settings, log, workspaces } = deps;
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
      const pendingReuse = await prepareReuse(pool, deps, {
        syncId,
        sourceId,
        config: run.config_snapshot,
        embeddingsOn: run.config_snapshot.embeddings !== false,
      });
      let head: { commitSha: string; commitAt: string; skipped: Array<{ path: string; reason: string }> };
      let dir = workspaces.dirFor(syncId);
      let unchanged: ReadonlySet<string> | undefined;
      let cached = false;
      let rewritten = true;
      let edits: { since: string; paths: ReadonlySet<string> } | undefined;
      try {
        const token = await loadAccessToken(pool, sourceId);
        const request = {
          url,
          ref,
          token,
          urls: settings.sourceUrls,
          timeoutMs: settings.cloneTimeoutMs,
          signal: hb.signal,
        };
        // The source's kept clone on this worker, brought to the new commit (git-cache.ts); a fresh one otherwise.
        const cache = await acquireCache(deps, sourceId, syncId);
        const kept = cache
          ? await updateCachedCheckout({ ...request, ...cache, previousCommit: pendingReuse.previous.previousCommit })
          : null;
        if (cache && kept) {
          workspaces.cacheReady(sourceId);
          dir = cache.dir;
          cached = true;
          rewritten = kept.rewritten;
          edits = kept.edits;
          unchanged = kept.unchanged ?? undefined;
          head = { ...kept, skipped: [] };
        } else {
          if (cache) await workspaces.release(syncId);
          head = await checkoutRef({ ...request, dir });
        }
      } catch (err) {
        await workspaces.release(syncId);
        hb.check();
        if (!(err instanceof CloneError)) throw err;
        const message = `cloning ${displayUrl(url)} at ${ref} failed: ${err.message}`;
        await recordIssues(pool, syncId, [
          { level: 'error', phase: 'cloning', code: err.code, message, context: { url: displayUrl(url), ref } },
        ]);
        throw ApplicationFailure.nonRetryable(message, 'CloneFailed');
      }
      hb.check();
      if (head.skipped.length > 0) {
        // A path the file system cannot hold was left out of the checkout (git-checkout.ts): one issue per file.
        await recordIssues(
          pool,
          syncId,
          head.skipped.map((f) => ({
            level: 'warning' as const,
            phase: 'cloning',
            code: 'path_unrepresentable',
            message: `${f.reason}: the file was left out of the checkout and is not indexed`,
            file_path: f.path,
          })),
        );
      }
      // The kept clone's walk is reused when its files were not rewritten since (same commit, same walk options), and
      // refreshed when the checkout only edited files' contents since the walk's commit (engine.refreshTree).
      const walk = { includePaths: includePaths(run.config_snapshot) };
      const walkKey = (commit: string) => `${commit}\0${JSON.stringify(walk.includePaths ?? [])}`;
      let tree = cached && !rewritten ? workspaces.keptTree(sourceId, walkKey(head.commitSha)) : undefined;
      let walked: NonNullable<CloneResult['walk']> = tree ? 'kept' : 'walked';
      if (!tree && cached && edits) {
        const before = workspaces.keptTree(sourceId, walkKey(edits.since));
        tree = (before && engine.refreshTree(before, edits.paths)) || undefined;
        if (tree) walked = 'refreshed';
      }
      if (!tree) tree = engine.openTree(dir, walk);
      if (cached) workspaces.keepTree(sourceId, walkKey(head.commitSha), tree);
      const reuse = await pendingReuse.context;
      const reusable = reuse.plan.reusable;
      const plan = batchPlan(tree.files, (p) => (unchanged?.has(p) === true ? reusable.get(p) : undefined));
      const bounds = await recordReuse(pool, syncId, reuse, plan.bounds);
      if (bounds[bounds.length - 1] !== tree.files.length) {
        throw new Error(`the run's batches cover ${bounds.at(-1)} files, the clone has ${tree.files.length}`);
      }
      workspaces.put({
        reuse,
        reused: new Map(),
        syncId,
        dir,
        commitSha: head.commitSha,
        commitAt: head.commitAt,
        tree,
        parsed: new Map(),
        ...(unchanged ? { unchanged } : {}),
        bounds,
        lastUsed: Date.now(),
      });
      progress.report('cloning', 1, 1);
      await progress.flush();
      log.info('sync_cloned', {
        sync_id: syncId,
        source_id: sourceId,
        commit: head.commitSha,
        files: tree.files.length,
        host_queue: workspaces.hostQueue,
        resumed: !input.fresh,
        kept_clone: cached,
        walked,
        known_unchanged: unchanged?.size ?? null,
        ms: Date.now() - t,
      });
      return {
        hostQueue: workspaces.hostQueue,
        commitSha: head.commitSha,
        commitAt: head.commitAt,
        files: tree.files.length,
        batches: bounds.length - 1,
        bounds,
        walk: walked,
        // A resumed clone keeps the run's recorded bounds; their writes run two at a time only if they are the plan's.
        ...(plan.writeConcurrency > 1 && sameBounds(bounds, plan.bounds)
          ? { writeConcurrency: plan.writeConcurrency }
          : {}),
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
