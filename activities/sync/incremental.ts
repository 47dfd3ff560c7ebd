/**
 * The sync pipeline's side of reuse (see reuse.ts for the rules): the plan for one run, the engine options that
 * skip unchanged files, the rows and graph input of reused files, and, once depends_on is known, the summaries that
 * must not be carried and the counts for the stats.
 */
import type { Pool } from '../../lib/db.ts';
import type { AnalyzeOptions, Dependency, EngineIssue, ReusedFile } from '../engine/types.ts';
import { dropSummaries, type DependingFile, type GraphFile, type ReusedRow } from '../store/index.ts';
import type { ActivityDeps } from './deps.ts';
import {
  analysisKey,
  countChanges,
  edgeMap,
  incrementalEnabled,
  loadEdges,
  loadReusePlan,
  staleSummaries,
  type ReuseCounts,
  type ReusePlan,
} from './reuse.ts';

export class Reuse {
  /** path → content hash of every file of this sync seen so far (analysed or reused). */
  readonly currentHashes = new Map<string, string>();
  private readonly queue: ReusedFile[] = [];
  private reusedCount = 0;
  private readonly carried: string[] = [];

  private constructor(
    private readonly pool: Pool,
    private readonly syncId: string,
    readonly key: string,
    readonly plan: ReusePlan,
  ) {}

  static async load(
    pool: Pool,
    deps: Pick<ActivityDeps, 'settings' | 'embeddings'>,
    o: { syncId: string; sourceId: string; config: Record<string, unknown>; embeddingsOn: boolean },
  ): Promise<Reuse> {
    const key = analysisKey({
      maxFileBytes: deps.settings.maxFileBytes,
      embeddingIdentity: deps.embeddings.identity,
    });
    const plan = await loadReusePlan(pool, {
      syncId: o.syncId,
      sourceId: o.sourceId,
      key,
      incremental: incrementalEnabled(o.config),
      embeddingsOn: o.embeddingsOn,
    });
    return new Reuse(pool, o.syncId, key, plan);
  }

  /** Options for engine.analyzeTree: unchanged files are queued here instead of being analysed. */
  engineOptions(onEach: () => void): Pick<AnalyzeOptions, 'reuse' | 'onReused'> {
    if (this.plan.reusable.size === 0) return {};
    return {
      reuse: this.plan.reusable,
      onReused: (f) => {
        this.queue.push(f);
        this.currentHashes.set(f.file_path, f.content_hash);
        onEach();
      },
    };
  }

  get queued(): number {
    return this.queue.length;
  }

  take(n: number): ReusedFile[] {
    return this.queue.splice(0, n);
  }

  /** The sync_files rows of reused files (summaries carried for now; `finish` drops the stale ones). */
  rows(files: readonly ReusedFile[]): ReusedRow[] {
    return files.map((f) => {
      const p = this.plan.reusable.get(f.file_path)!;
      if (p.description !== null) this.carried.push(f.file_path);
      return {
        file_path: f.file_path,
        content_id: p.contentId,
        description: p.description,
        description_generated_at: p.descriptionGeneratedAt,
      };
    });
  }

  /** Graph input and counts of reused files whose rows were written (`ids`: path → new file record id). */
  graphFiles(
    files: readonly ReusedFile[],
    ids: ReadonlyMap<string, string>,
  ): {
    files: GraphFile[];
    depending: DependingFile[];
    issues: EngineIssue[];
    binaryFiles: number;
    symbols: number;
    chunks: number;
  } {
    const out = { files: [] as GraphFile[], depending: [] as DependingFile[], issues: [] as EngineIssue[] };
    let binaryFiles = 0;
    let symbols = 0;
    let chunks = 0;
    for (const f of files) {
      const fileId = ids.get(f.file_path);
      if (!fileId) continue;
      const p = this.plan.reusable.get(f.file_path)!;
      this.reusedCount++;
      if (p.binary) binaryFiles++;
      symbols += p.symbols.length;
      chunks += p.chunks;
      // The file's own analysis issues, as a full sync records them, then those of resolving it again.
      out.issues.push(...p.issues, ...f.issues);
      out.files.push({
        fileId,
        file_path: f.file_path,
        name: p.name,
        type: p.type,
        domain: p.domain,
        symbols: p.symbols,
        dependencies: f.dependencies,
      });
      if (f.dependencies.length > 0) out.depending.push({ file_path: f.file_path, dependencies: f.dependencies });
    }
    return { ...out, binaryFiles, symbols, chunks };
  }

  /**
   * After depends_on: drops carried summaries whose neighbourhood changed, and returns the counts for the stats.
   * `depending` holds every file of this sync that has dependencies.
   */
  async finish(
    depending: ReadonlyArray<{ file_path: string; dependencies: readonly Dependency[] }>,
    current: ReadonlyMap<string, string>,
  ): Promise<ReuseCounts & { summaries_carried: number; summaries_dropped: number }> {
    let dropped = 0;
    if (this.carried.length > 0 && this.plan.previousSyncId) {
      const before = await loadEdges(this.pool, this.plan.previousSyncId);
      const after = edgeMap(depending, new Set(current.keys()));
      const stale = staleSummaries({
        candidates: this.carried,
        before,
        beforeHashes: this.plan.previousHashes,
        after,
        afterHashes: current,
      });
      dropped = await dropSummaries(this.pool, this.syncId, stale);
    }
    return {
      ...countChanges(this.plan, current, this.reusedCount),
      summaries_carried: this.carried.length - dropped,
      summaries_dropped: dropped,
    };
  }
}
