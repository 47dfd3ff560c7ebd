/**
 * cloneRepository: the first step of a sync, and the step a resumed sync starts again with on another worker. Takes
 * any worker of the shared queue; that worker fetches the ref (depth 1) into its own disk, walks the tree once
 * (engine.openTree: files in batch order, the import index) and keeps both in its Workspaces. It answers its own
 * task queue (`hostQueue`): parseBatch and writeBatch go there, to the worker that holds the clone.
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
import { loadAccessToken } from './runs.ts';
import { batchCount } from './workspace.ts';
import { prepareReuse } from './incremental.ts';

function includePaths(config: Record<string, unknown>): string[] | undefined {
  const v = config.include_paths;
  if (!Array.isArray(v)) return undefined;
  const paths = v.filter((x): x is string => typeof x === 'string' && x !== '');
  return paths.length > 0 ? paths : undefined;
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
      const dir = workspaces.dirFor(syncId);
      await workspaces.release(syncId);
      let head;
      try {
        const token = await loadAccessToken(pool, sourceId);
        head = await checkoutRef({ url, ref, token, dir, timeoutMs: settings.cloneTimeoutMs, signal: hb.signal });
      } catch (err) {
        hb.check();
        if (!(err instanceof CloneError)) throw err;
        const message = `cloning ${displayUrl(url)} at ${ref} failed: ${err.message}`;
        await recordIssues(pool, syncId, [
          { level: 'error', phase: 'cloning', code: err.code, message, context: { url: displayUrl(url), ref } },
        ]);
        throw ApplicationFailure.nonRetryable(message, 'CloneFailed');
      }
      hb.check();
      const tree = engine.openTree(dir, { includePaths: includePaths(run.config_snapshot) });
      const reuse = await prepareReuse(pool, deps, {
        syncId,
        sourceId,
        config: run.config_snapshot,
        embeddingsOn: run.config_snapshot.embeddings !== false,
      });
      workspaces.put({
        reuse,
        reused: new Map(),
        syncId,
        dir,
        commitSha: head.commitSha,
        commitAt: head.commitAt,
        tree,
        parsed: new Map(),
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
        ms: Date.now() - t,
      });
      return {
        hostQueue: workspaces.hostQueue,
        commitSha: head.commitSha,
        commitAt: head.commitAt,
        files: tree.files.length,
        batches: batchCount(tree.files.length),
      };
    } finally {
      hb.stop();
    }
  }
  return { cloneRepository };
}
