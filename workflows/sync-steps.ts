/**
 * The steps of one sync run, phase by phase (docs/pipeline.md has each step's queue, timeouts and retries):
 *
 *   cloneAndWrite       cloneRepository, then parseBatch and writeBatch for every batch (sync-batches.ts); clone
 *                       again (same commit) when the worker holding the clone is lost; releaseWorkspace after
 *   resolveGraph        resolveDependencies beside resolveSymbols (and beside the clone's release)
 *   startPrecise        right after the clone (PRECISE_EARLY_PATCH): planPrecise from the clone's languages, then
 *                       preparePrecise per language on the precise workers' queues (the indexers run beside the
 *                       parse, the writes and the symbol graph)
 *   embedBesidePrecise  embedFiles → embedChunks (left out when the writes left nothing to embed), beside them the
 *                       precise tier's preciseIndex per language (on the worker holding its index), or the whole
 *                       tier (planPrecise, then preciseIndex per language) in runs started before the patch
 *   syncStats           what finalizeSync records
 *
 * Only ids and counts pass through history.
 */
import {
  ActivityCancellationType,
  CancellationScope,
  deprecatePatch,
  isCancellation,
  patched,
  proxyActivities,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { PreciseActivities } from '../activities/precise/index.ts';
import type {
  CloneResult,
  EmbedResult,
  PreciseLanguageResult,
  PrecisePlan,
  PrecisePrepared,
  ResolveResult,
  SymbolsResult,
  SyncActivitySettings,
  SyncIds,
  SyncStats,
} from './sync-types.ts';
import { parseAndWrite } from './sync-batches.ts';
import {
  control,
  count,
  failureMessage,
  hostLost,
  NOT_RETRIED,
  onHost,
  step,
  type StepContext,
} from './sync-options.ts';
import {
  IDLE_EMBED_PATCH,
  PRECISE_EARLY_PATCH,
  PRECISE_PATCH,
  RELEASE_BESIDE_RESOLVE_PATCH,
  SYMBOL_GRAPH_PATCH,
} from './sync-patches.ts';

interface Written {
  commitSha: string;
  /** The clone's release, running (best effort: it never fails). */
  releasing: Promise<void>;
}

/**
 * Clone, then parse and write every batch; clone again (same commit) when the worker holding the clone is lost.
 * `cloned` is called once, with the first clone's result, before the parse.
 */
async function cloneAndWrite(ctx: StepContext, cloned?: (clone: CloneResult) => void): Promise<Written> {
  const { begin, durations } = ctx;
  let commitSha: string | null = null;
  let clones = 0;
  for (;;) {
    let t = Date.now();
    ctx.setPhase('cloning', 0, 1);
    const clone: CloneResult = await step(
      ctx,
      `clone ${begin.source} at ${commitSha ? commitSha.slice(0, 12) : begin.ref}${clones > 0 ? ` (again, clone ${clones + 1})` : ''}`,
    ).cloneRepository({ ...ctx.ids, fresh: clones === 0, commitSha });
    if (clones === 0) cloned?.(clone);
    clones++;
    commitSha = clone.commitSha;
    durations.cloning = (durations.cloning ?? 0) + (Date.now() - t);
    t = Date.now();
    ctx.setPhase('parsing', ctx.totals.files, clone.files);
    try {
      await parseAndWrite(ctx, clone);
      durations.parsing = (durations.parsing ?? 0) + (Date.now() - t);
      // Best effort: a worker that is gone took its clone with it. It runs beside the resolve (it touches only the
      // worker's own files).
      const releasing = onHost(ctx, clone, 'release the clone')
        .releaseWorkspace(ctx.ids)
        .then(
          () => undefined,
          () => undefined,
        );
      deprecatePatch(RELEASE_BESIDE_RESOLVE_PATCH);
      return { commitSha, releasing };
    } catch (err) {
      durations.parsing = (durations.parsing ?? 0) + (Date.now() - t);
      if (!hostLost(err) || clones >= begin.settings.maxAttempts) throw err;
    }
  }
}

interface Graph {
  resolved: ResolveResult;
  /** Null when the run's config says `symbol_graph: false`. */
  symbols: SymbolsResult | null;
}

/**
 * The depends_on edges and, beside them, the symbol graph: neither reads what the other writes. `symbol_graph: false`
 * in the run's config leaves the symbol graph out (and with it the precise tier, which compares with it).
 */
async function resolveGraph(ctx: StepContext, releasing: Promise<void>): Promise<Graph> {
  const t = Date.now();
  ctx.setPhase('graphing', 0, ctx.totals.fileVertices);
  deprecatePatch(SYMBOL_GRAPH_PATCH);
  const symbolsRun =
    ctx.begin.symbolGraph !== false
      ? step(ctx, 'resolve symbols: calls, inherits, implements, overrides, references').resolveSymbols(ctx.ids)
      : null;
  symbolsRun?.catch(() => undefined);
  let resolved: ResolveResult;
  try {
    resolved = await step(ctx, 'resolve imports into depends_on edges').resolveDependencies(ctx.ids);
  } finally {
    // Never leave a step running behind a failure.
    if (symbolsRun) await symbolsRun.catch(() => undefined);
  }
  const symbols = symbolsRun ? await symbolsRun : null;
  ctx.durations.graphing = Date.now() - t;
  await releasing;
  return { resolved, symbols };
}

type PreciseOut = { languages: Record<string, PreciseLanguageResult>; ms: number };

function preciseResult(
  language: string,
  status: 'failed' | 'skipped',
  reason: string,
  ms: number,
): PreciseLanguageResult {
  return { language, status, reason, edges: 0, external: 0, replaced: 0, added: 0, removed: 0, confirmed: 0, ms };
}

/**
 * The precise tier of one sync (issue 29): the plan on the shared queue (languages present, live precise workers),
 * then one step per language on that language's precise queue, all at once. A step that no worker takes in time
 * (scheduleToStart), or that fails past its retries, becomes a sync issue; the sync goes on. Cancellation stops them.
 */
async function precise(ids: SyncIds, commitSha: string, s: SyncActivitySettings): Promise<PreciseOut> {
  const started = Date.now();
  const plan = await control('precise: plan (languages present, precise workers)', s).planPrecise(ids);
  const languages: Record<string, PreciseLanguageResult> = {};
  for (const language of plan.skipped) languages[language] = preciseResult(language, 'skipped', 'precise_no_worker', 0);
  await Promise.all(
    plan.run.map(async (p) => {
      const t = Date.now();
      try {
        languages[p.language] = await proxyActivities<PreciseActivities>({
          taskQueue: p.queue,
          startToCloseTimeout: p.timeoutMs,
          scheduleToStartTimeout: s.hostQueueTimeoutMs * 5,
          heartbeatTimeout: s.heartbeatTimeoutMs,
          cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
          retry: { initialInterval: '5 seconds', maximumAttempts: 2, nonRetryableErrorTypes: NOT_RETRIED },
          summary: `precise: ${p.indexer} on the ${p.language} files`,
        }).preciseIndex({ ...ids, language: p.language, commitSha });
      } catch (err) {
        if (isCancellation(err)) throw err;
        const message = failureMessage(err);
        await control(`precise: ${p.language} did not complete`, s).notePrecise({
          ...ids,
          language: p.language,
          message,
        });
        languages[p.language] = preciseResult(p.language, 'failed', message, Date.now() - t);
      }
    }),
  );
  return { languages, ms: Date.now() - started };
}

/** The options of a precise step on a precise worker's queue (the plan's per-language timeout). */
function preciseOptions(s: SyncActivitySettings, timeoutMs: number, summary: string): ActivityOptions {
  return {
    startToCloseTimeout: timeoutMs,
    scheduleToStartTimeout: s.hostQueueTimeoutMs * 5,
    heartbeatTimeout: s.heartbeatTimeoutMs,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { initialInterval: '5 seconds', maximumAttempts: 2, nonRetryableErrorTypes: NOT_RETRIED },
    summary,
  };
}

/** The precise tier started right after the clone: its plan and, per planned language, the prepared index. */
interface PreciseStart {
  scope: CancellationScope;
  started: number;
  run: Promise<{ plan: PrecisePlan; prepared: Array<PrecisePrepared | { error: string }> }>;
}

/**
 * Starts the precise tier right after the clone (PRECISE_EARLY_PATCH): the plan from the clone's languages, then one
 * preparePrecise per language on its precise queue, which runs the indexer (it needs only the commit) while the sync
 * parses, writes and resolves. Runs in a scope of its own, so a failing sync cancels it.
 */
function startPrecise(ctx: StepContext, clone: CloneResult): PreciseStart {
  const s = ctx.begin.settings;
  const scope = new CancellationScope();
  const started = Date.now();
  const run = scope.run(async () => {
    const plan = await control('precise: plan (languages present, precise workers)', s).planPrecise({
      ...ctx.ids,
      ...(clone.languages ? { languages: clone.languages } : {}),
    });
    const prepared = await Promise.all(
      plan.run.map(async (p): Promise<PrecisePrepared | { error: string }> => {
        try {
          return await proxyActivities<PreciseActivities>({
            ...preciseOptions(s, p.timeoutMs, `precise: ${p.indexer} indexes the ${p.language} files`),
            taskQueue: p.queue,
          }).preparePrecise({ ...ctx.ids, language: p.language, commitSha: clone.commitSha });
        } catch (err) {
          if (isCancellation(err)) throw err;
          return { error: failureMessage(err) };
        }
      }),
    );
    return { plan, prepared };
  });
  run.catch(() => undefined);
  return { scope, started, run };
}

/**
 * The rest of a precise tier started after the clone, once the symbol graph is written: per language, preciseIndex on
 * the worker holding its index (or, when none holds one or that worker is gone, on the language's queue: it indexes
 * again there). A language whose preparation or step failed becomes one sync issue; the sync goes on.
 */
async function finishPrecise(ctx: StepContext, commitSha: string, start: PreciseStart): Promise<PreciseOut> {
  const s = ctx.begin.settings;
  const { plan, prepared } = await start.run;
  const languages: Record<string, PreciseLanguageResult> = {};
  for (const language of plan.skipped) languages[language] = preciseResult(language, 'skipped', 'precise_no_worker', 0);
  await Promise.all(
    plan.run.map(async (p, i) => {
      const t = Date.now();
      const prep = prepared[i]!;
      const input = { ...ctx.ids, language: p.language, commitSha };
      const summary = `precise: ${p.indexer} edges into the ${p.language} symbol graph`;
      try {
        if ('error' in prep) throw new Error(prep.error);
        if (prep.hostQueue) {
          try {
            languages[p.language] = await proxyActivities<PreciseActivities>({
              ...preciseOptions(s, p.timeoutMs, summary),
              taskQueue: prep.hostQueue,
              scheduleToStartTimeout: s.hostQueueTimeoutMs,
              retry: { maximumAttempts: 1 },
            }).preciseIndex(input);
            return;
          } catch (err) {
            if (!hostLost(err)) throw err;
          }
        }
        languages[p.language] = await proxyActivities<PreciseActivities>({
          ...preciseOptions(s, p.timeoutMs, summary),
          taskQueue: p.queue,
        }).preciseIndex(input);
      } catch (err) {
        if (isCancellation(err)) throw err;
        const message = failureMessage(err);
        await control(`precise: ${p.language} did not complete`, s).notePrecise({
          ...ctx.ids,
          language: p.language,
          message,
        });
        languages[p.language] = preciseResult(p.language, 'failed', message, Date.now() - t);
      }
    }),
  );
  return { languages, ms: Date.now() - start.started };
}

interface Embedded {
  files: EmbedResult;
  chunks: EmbedResult;
  precise: PreciseOut | null;
}

/**
 * The embedding steps, and beside them the precise tier (issue 29) on the precise workers' queues: it never fails
 * the sync (its failures are sync issues), and the sync waits for it before finalizing.
 */
async function embedBesidePrecise(
  ctx: StepContext,
  commitSha: string,
  graph: Graph,
  early: PreciseStart | null | undefined,
): Promise<Embedded> {
  const { begin, durations, totals, toEmbed } = ctx;
  let preciseRun: Promise<PreciseOut> | null = null;
  if (early !== undefined) {
    // Started after the clone (PRECISE_EARLY_PATCH), or not at all (null).
    if (early) preciseRun = finishPrecise(ctx, commitSha, early);
  } else if (begin.settings.precise && graph.symbols) {
    deprecatePatch(PRECISE_PATCH);
    preciseRun = precise(ctx.ids, commitSha, begin.settings);
  }
  preciseRun?.catch(() => undefined);
  const embed = { ...ctx.ids, embeddings: begin.embeddings };
  let files: EmbedResult;
  let chunks: EmbedResult;
  try {
    if (begin.embeddings && toEmbed.known && toEmbed.files === 0 && toEmbed.chunks === 0) {
      deprecatePatch(IDLE_EMBED_PATCH);
      // Every file and chunk of the sync already has its vector (a re-sync of unchanged files): the two embedding
      // steps would find nothing to do; what they would report is known (every chunk embedded, no file text sent).
      files = { embedded: 0, failed: 0, skipped: false };
      chunks = { embedded: totals.chunks, failed: 0, skipped: false };
      durations.embedding_summaries = 0;
      durations.embedding_chunks = 0;
    } else {
      let t = Date.now();
      ctx.setPhase('embedding_summaries', 0, totals.files);
      files = await step(ctx, `embed ${count(totals.files)} files`).embedFiles(embed);
      if (!files.skipped) durations.embedding_summaries = Date.now() - t;
      t = Date.now();
      ctx.setPhase('embedding_chunks', 0, totals.chunks);
      chunks = await step(ctx, `embed ${count(totals.chunks)} chunks`).embedChunks(embed);
      if (!chunks.skipped) durations.embedding_chunks = Date.now() - t;
    }
  } finally {
    // Never leave a step running behind a failure.
    if (preciseRun) await preciseRun.catch(() => undefined);
  }
  const preciseOut = preciseRun ? await preciseRun : null;
  if (preciseOut) durations.precise = preciseOut.ms;
  return { files, chunks, precise: preciseOut };
}

function syncStats(ctx: StepContext, commitSha: string, graph: Graph, e: Embedded): SyncStats {
  const { totals } = ctx;
  const { resolved, symbols } = graph;
  return {
    commit_sha: commitSha,
    files: totals.files,
    binary_files: totals.binaryFiles,
    chunks: totals.chunks,
    symbols: totals.symbols,
    vertices: totals.fileVertices + totals.symbolVertices,
    edges: { depends_on: resolved.dependsOnEdges, defines: totals.definesEdges, ...(symbols?.edges ?? {}) },
    ...(symbols ? { symbol_uses: { unresolved: symbols.unresolved, external: symbols.external } } : {}),
    ...(e.precise && Object.keys(e.precise.languages).length > 0 ? { precise: e.precise.languages } : {}),
    embeddings: {
      files_embedded: e.files.embedded,
      files_failed: e.files.failed,
      chunks_embedded: e.chunks.embedded,
      chunks_failed: e.chunks.failed,
      skipped: e.files.skipped,
    },
    durations_ms: ctx.durations,
  };
}

/** Every step of a run that beginSync let proceed, up to (not including) finalizeSync. */
export async function syncSteps(ctx: StepContext): Promise<SyncStats> {
  if (!patched(PRECISE_EARLY_PATCH)) {
    const written = await cloneAndWrite(ctx);
    const graph = await resolveGraph(ctx, written.releasing);
    const embedded = await embedBesidePrecise(ctx, written.commitSha, graph, undefined);
    return syncStats(ctx, written.commitSha, graph, embedded);
  }
  // The precise tier compares with the symbol graph: it runs only with it.
  const wanted = ctx.begin.settings.precise === true && ctx.begin.symbolGraph !== false;
  let early: PreciseStart | null = null;
  try {
    const written = await cloneAndWrite(ctx, (clone) => {
      if (wanted) early = startPrecise(ctx, clone);
    });
    const graph = await resolveGraph(ctx, written.releasing);
    const embedded = await embedBesidePrecise(ctx, written.commitSha, graph, early);
    return syncStats(ctx, written.commitSha, graph, embedded);
  } catch (err) {
    // Never leave a step running behind a failure: the indexers started after the clone stop with it.
    const started = early as PreciseStart | null;
    if (started) {
      started.scope.cancel();
      await started.run.catch(() => undefined);
    }
    throw err;
  }
}
