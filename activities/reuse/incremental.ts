/**
 * The sync steps' side of reuse (rules in reuse.ts), as thin hooks for the step files:
 *   cloneRepository → prepareReuse / recordReuse: the plan (previous completed sync, reusable files), kept in the
 *                     workspace; the previous sync's id and the batch bounds are recorded in the step ledger (step
 *                     `reuse`), so a sync resumed on another worker compares with the same sync and cuts the same
 *                     batches;
 *   parseBatch      → reuseOptions: unchanged files are not analysed, only their imports resolved again;
 *   writeBatch      → reusedRows / reusedGraph: one sync_files row per reused file, its graph written inside the
 *                     database from the stored rows (store/reused-graph.ts);
 *   resolveDependencies → carrySummaries: summaries of files whose neighbourhood changed are dropped;
 *   finalizeSync    → incrementalStats: reused / changed / added / removed, from the rows.
 */
import type { Pool, Queryable } from '../../lib/db.ts';
import type { AnalyzeOptions, Dependency, EngineIssue, ReusedFile } from '../../engine/types.ts';
import {
  contentHashes,
  contentHashesById,
  describedPaths,
  dropSummaries,
  syncFileRows,
  type DependingFile,
  type ReusedRow,
} from '../store/index.ts';
import type { IncrementalStats } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from '../sync/helpers/deps.ts';
import type { ReuseContext, ReuseLedger } from './reuse-context.ts';
import { RESOLVE_STEP, recordStepOnce, recordedResult } from '../store/ledger.ts';

export type { ReuseContext };
import {
  analysisKey,
  edgeMap,
  findPreviousSync,
  incrementalEnabled,
  loadEdges,
  loadReusePlan,
  staleSummaries,
  symbolGraphEnabled,
  type PreviousSync,
} from './reuse.ts';

export const REUSE_STEP = 'reuse';

const ledger = (db: Queryable, syncId: string) => recordedResult<ReuseLedger>(db, syncId, REUSE_STEP);

/** A run's comparison as the clone step needs it: the previous sync at once, its files while the clone runs. */
export interface PendingReuse {
  /** The previous completed sync and the commit it read (the kept clone fetches from there). */
  previous: PreviousSync;
  /** The whole plan: loading the previous sync's files (~60 ms for CPython) overlaps the git commands. */
  context: Promise<ReuseContext>;
}

/** Starts loading the plan of a run (a resumed clone compares with the sync its run's first clone recorded). */
export async function prepareReuse(
  pool: Pool,
  deps: Pick<ActivityDeps, 'settings' | 'embeddings'>,
  o: { syncId: string; sourceId: string; config: Record<string, unknown>; embeddingsOn: boolean },
): Promise<PendingReuse> {
  const key = analysisKey({
    maxFileBytes: deps.settings.maxFileBytes,
    embeddingIdentity: deps.embeddings.identity,
    symbolGraph: symbolGraphEnabled(o.config),
  });
  const recorded = await ledger(pool, o.syncId);
  const previous = await findPreviousSync(pool, {
    syncId: o.syncId,
    sourceId: o.sourceId,
    incremental: incrementalEnabled(o.config),
    ...(recorded ? { previousSyncId: recorded.previous_sync_id } : {}),
  });
  const context = loadReusePlan(pool, { key, embeddingsOn: o.embeddingsOn }, previous).then((plan) => ({
    key,
    plan,
    recorded,
  }));
  // The caller awaits it after the clone; a clone that fails first leaves it unawaited, not unhandled.
  context.catch(() => undefined);
  return { previous, context };
}

/**
 * Records the run's comparison (previous sync, batch bounds) at its first clone; a resumed clone keeps what was
 * recorded. Returns the bounds to use.
 */
export async function recordReuse(pool: Pool, syncId: string, ctx: ReuseContext, bounds: number[]): Promise<number[]> {
  if (ctx.recorded) return ctx.recorded.bounds ?? bounds;
  const entry: ReuseLedger = {
    previous_sync_id: ctx.plan.previousSyncId,
    ...(ctx.plan.fullReason ? { reason: ctx.plan.fullReason } : {}),
    bounds,
  };
  await recordStepOnce(pool, syncId, REUSE_STEP, entry);
  ctx.recorded = (await ledger(pool, syncId)) ?? entry;
  return ctx.recorded.bounds ?? bounds;
}

/** Engine options for one batch: unchanged files go to `sink` instead of being analysed. */
export function reuseOptions(
  ctx: ReuseContext | undefined,
  unchanged: ReadonlySet<string> | undefined,
  sink: (f: ReusedFile) => void,
): Pick<AnalyzeOptions, 'reuse' | 'onReused' | 'unchanged'> {
  if (!ctx || ctx.plan.reusable.size === 0) return {};
  return { reuse: ctx.plan.reusable, onReused: sink, ...(unchanged ? { unchanged } : {}) };
}

/** The sync_files rows of reused files, with their cached summaries (carrySummaries drops the stale ones). */
export function reusedRows(ctx: ReuseContext, files: readonly ReusedFile[]): ReusedRow[] {
  return files.map((f) => {
    const p = ctx.plan.reusable.get(f.file_path)!;
    return {
      file_path: f.file_path,
      content_id: p.contentId,
      description: p.description,
      description_generated_at: p.descriptionGeneratedAt,
    };
  });
}

/** Dependencies, issues and counts of the reused files whose rows were written (`ids`: path → file id). */
export function reusedGraph(
  ctx: ReuseContext,
  files: readonly ReusedFile[],
  ids: ReadonlyMap<string, string>,
): {
  depending: DependingFile[];
  issues: EngineIssue[];
  binaryFiles: number;
  symbols: number;
  chunks: number;
  chunksWithoutVector: number;
} {
  const out = { depending: [] as DependingFile[], issues: [] as EngineIssue[] };
  let binaryFiles = 0;
  let symbols = 0;
  let chunks = 0;
  let chunksWithoutVector = 0;
  for (const f of files) {
    if (!ids.has(f.file_path)) continue;
    const p = ctx.plan.reusable.get(f.file_path)!;
    if (p.binary) binaryFiles++;
    symbols += p.symbols;
    chunks += p.chunks;
    chunksWithoutVector += p.chunksWithoutVector;
    // The file's own analysis issues, as a full sync records them, then those of resolving it again.
    out.issues.push(...p.issues, ...f.issues);
    if (f.dependencies.length > 0) out.depending.push({ file_path: f.file_path, dependencies: f.dependencies });
  }
  return { ...out, binaryFiles, symbols, chunks, chunksWithoutVector };
}

/**
 * After depends_on is written: drops the carried summaries of files whose neighbourhood differs from the previous
 * sync's. `depending`: every file of this sync with its dependencies. Returns how many were dropped.
 */
export async function carrySummaries(
  db: Queryable,
  syncId: string,
  depending: ReadonlyArray<{ file_path: string; dependencies: readonly Dependency[] }>,
): Promise<number> {
  const entry = await ledger(db, syncId);
  if (!entry?.previous_sync_id) return 0;
  const carried = await describedPaths(db, syncId);
  if (carried.length === 0) return 0;
  const [afterHashes, beforeHashes, before] = [
    await contentHashes(db, syncId),
    await contentHashes(db, entry.previous_sync_id),
    await loadEdges(db, entry.previous_sync_id),
  ];
  const stale = staleSummaries({
    candidates: carried,
    before,
    beforeHashes,
    after: edgeMap(depending, new Set(afterHashes.keys())),
    afterHashes,
  });
  return dropSummaries(db, syncId, stale);
}

/**
 * The stats of reuse, from the rows: a reused file shares its content row with the previous sync's file. The two
 * syncs' files are read by their sync and compared here, and content hashes are read only for the paths whose
 * content rows differ. One join over both syncs left the plan to estimates taken before autoanalyze had seen the new sync's
 * rows: sequential scans of every source's files and contents, 0.1-1.5 s at the end of an incremental sync.
 */
export async function incrementalStats(db: Queryable, syncId: string): Promise<IncrementalStats | undefined> {
  const entry = await ledger(db, syncId);
  if (!entry) return undefined;
  const prev = entry.previous_sync_id;
  const after = await syncFileRows(db, syncId);
  const before = prev === null ? [] : await syncFileRows(db, prev);
  const counts = { reused: 0, unchanged_reanalysed: 0, changed: 0, added: 0, removed: 0, summaries_carried: 0 };
  const differing: Array<[string, string]> = [];
  const byPath = new Map(before.map((b) => [b.file_path, b]));
  for (const a of after) {
    if (a.described) counts.summaries_carried++;
    const b = byPath.get(a.file_path);
    if (!b) counts.added++;
    else if (b.content_id === a.content_id) counts.reused++;
    else differing.push([a.content_id, b.content_id]);
    byPath.delete(a.file_path);
  }
  counts.removed = byPath.size;
  if (differing.length > 0) {
    const ids = [...new Set(differing.flat())];
    const hash = await contentHashesById(db, ids);
    for (const [a, b] of differing) {
      if (hash.get(a) === hash.get(b)) counts.unchanged_reanalysed++;
      else counts.changed++;
    }
  }
  const resolved = await recordedResult<{ summariesDropped?: number }>(db, syncId, RESOLVE_STEP);
  return {
    previous_sync_id: prev,
    full: prev === null,
    ...(entry.reason ? { reason: entry.reason } : {}),
    ...counts,
    summaries_dropped: resolved?.summariesDropped ?? 0,
  };
}
