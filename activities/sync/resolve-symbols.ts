/**
 * resolveSymbols (issue 28): the symbol graph of a sync. Runs beside resolveDependencies, after every batch is
 * written, on any worker (nothing of the clone is needed):
 *   1. every file's symbol facts: stored once per content (symbol_facts), written by this sync's batches for the
 *      files it analysed and by an earlier sync for the files it reused, so a re-sync parses nothing again;
 *   2. every file's imports with the files they resolve to in this tree (the write steps' hand-off);
 *   3. the engine's pure, deterministic resolver over all of them (engine/symbols: resolveSymbolGraph), so an
 *      incremental sync gets exactly the edges a full sync of the same commit gets; on a thread of its own
 *      (resolve-thread.ts), the facts parsed there from their stored JSON, so this worker's event loop (heartbeats,
 *      the steps running beside) stays free;
 *   4. one transaction: the edges (calls, inherits, implements, overrides, references) between this sync's Symbol
 *      vertices, the unresolved uses per file, the ledger row `symbols`; the imports are then dropped from the
 *      hand-off (nothing reads them later).
 * A re-sync whose files are all its previous sync's copies that sync's symbol graph instead (copyFromPrevious). A
 * sync that analysed every file itself usually finds the step recorded: the worker holding the clone resolved while
 * the batches were written, and the last write wrote the graph (early-symbols.ts, the same writeResolvedGraph).
 * Idempotent like the other writing steps: a repeated step returns the recorded result.
 */
import { rolledBackIfNull, withTransaction, type Pool } from '../../lib/db.ts';
import type { ResolveOutput, SymbolEdge } from '../../engine/symbols/index.ts';
import { resolveOnThread } from '../../engine/symbols/resolve-thread.ts';
import type { SymbolsResult, SyncIds } from '../../workflows/sync-types.ts';
import {
  copySymbolGraph,
  loadGraphLabels,
  loadSymbolFactsJson,
  sameFiles,
  recordIssues,
  SYMBOL_EDGE_LABELS,
  symbolVertices,
  writeSymbolEdges,
  writeUnresolved,
  type GraphLabels,
  type SymbolEdgeWriteResult,
} from '../store/index.ts';
import type { ActivityDeps } from './helpers/deps.ts';
import { graphAlias } from '../store/shared-graph.ts';
import { startHeartbeat, type Heartbeat } from './helpers/heartbeat.ts';
import { claimRun } from './helpers/run-claim.ts';
import {
  SYMBOLS_STEP,
  dropSymbolImports,
  previousSymbolsStep,
  recordStep,
  recordedResult,
  withSavepoints,
  writtenFileVertices,
  writtenFilesAndImports,
} from '../store/ledger.ts';

/**
 * The edges are written on this many connections at once, each part its own transaction with its own ledger row
 * (`symbols edges i/n`): after the last write nothing else keeps the database busy, and one connection is one core.
 * Parts are contiguous in the resolver's order (label, from, to) and cut only where the label or the from-symbol
 * changes. A part recorded by an earlier attempt is not written again (the resolver is deterministic: the same parts).
 */
const EDGE_WRITERS = 2;

interface EdgePart {
  edges: SymbolEdgeWriteResult['edges'];
  dangling: number;
  issues: SymbolEdgeWriteResult['issues'];
}

/** The edges cut into `n` contiguous parts of about equal size (fewer when they are few). */
export function edgeParts(edges: readonly SymbolEdge[], n: number): SymbolEdge[][] {
  const parts: SymbolEdge[][] = [];
  let start = 0;
  for (let k = 1; k < n; k++) {
    let cut = Math.max(start, Math.floor((edges.length * k) / n));
    while (
      cut > start &&
      cut < edges.length &&
      edges[cut]!.label === edges[cut - 1]!.label &&
      edges[cut]!.from === edges[cut - 1]!.from
    )
      cut++;
    if (cut > start && cut < edges.length) {
      parts.push(edges.slice(start, cut));
      start = cut;
    }
  }
  parts.push(edges.slice(start));
  return parts;
}

async function writeEdgePart(
  pool: Pool,
  input: SyncIds,
  step: string,
  edges: readonly SymbolEdge[],
  vertexOf: ReadonlyMap<string, string>,
  labels: GraphLabels,
): Promise<EdgePart> {
  const done = await recordedResult<EdgePart>(pool, input.syncId, step);
  if (done) return done;
  return withTransaction(pool, async (client) => {
    const w = await writeSymbolEdges(withSavepoints(client), input, edges, vertexOf, labels);
    const part: EdgePart = { edges: w.edges, dangling: w.dangling, issues: w.issues };
    await recordStep(client, input.syncId, step, part, null);
    return part;
  });
}

/**
 * Writes a resolved symbol graph once every batch is written: the edges between the sync's Symbol vertices (in parts
 * side by side, above), then in one transaction the unresolved uses per file, the edges' issues and the ledger row
 * `symbols`; the imports are then dropped from the hand-off. `files`: the files resolved.
 */
export async function writeResolvedGraph(
  db: Pool,
  input: SyncIds,
  files: number,
  resolved: ResolveOutput,
  hb: Heartbeat,
  opts: {
    fileVertices?: ReadonlyMap<string, string>;
    /** The sync's Symbol vertices by SymbolRef, when known (else read: symbolVertices). */
    vertexOf?: ReadonlyMap<string, string>;
    whileWriting?: boolean;
  } = {},
): Promise<SymbolsResult> {
  const { syncId } = input;
  const labels = await loadGraphLabels(db);
  const vertexOf =
    opts.vertexOf ?? (await symbolVertices(db, opts.fileVertices ?? (await writtenFileVertices(db, syncId))));
  hb.check();
  const parts = edgeParts(resolved.edges, EDGE_WRITERS);
  const written = await Promise.allSettled(
    parts.map((edges, i) =>
      writeEdgePart(db, input, `${SYMBOLS_STEP} edges ${i + 1}/${parts.length}`, edges, vertexOf, labels),
    ),
  );
  const failed = written.find((w) => w.status === 'rejected');
  if (failed) throw failed.reason;
  const done = written.map((w) => (w as PromiseFulfilledResult<EdgePart>).value);
  hb.check();
  return withTransaction(db, async (client) => {
    const unresolvedFiles = await writeUnresolved(client, syncId, resolved.unresolved);
    await recordIssues(
      client,
      syncId,
      done.flatMap((p) => p.issues),
    );
    const result: SymbolsResult = {
      files,
      edges: Object.fromEntries(
        SYMBOL_EDGE_LABELS.map((l) => [l, done.reduce((n, p) => n + p.edges[l], 0)]),
      ) as SymbolsResult['edges'],
      unresolved: resolved.stats.unresolved,
      unresolvedFiles,
      external: resolved.stats.external,
      dangling: done.reduce((n, p) => n + p.dangling, 0),
      ...(opts.whileWriting ? { resolvedWhileWriting: true as const } : {}),
    };
    await recordStep(client, syncId, SYMBOLS_STEP, result, { stats: resolved.stats });
    await dropSymbolImports(client, syncId);
    return result;
  });
}

export function createResolveSymbols({ pool, settings, log }: ActivityDeps) {
  /**
   * A sync holding exactly its previous sync's files (a re-sync of an unchanged tree) gets the previous sync's symbol
   * graph copied inside the database instead of reading every file's facts and resolving again: the resolver is a
   * pure function of the files, so the result is the same (issue 28 item 6). Taken only when the copy reproduces
   * what the previous sync recorded, edge for edge per label and file for file; otherwise (a vertex or edge of the
   * previous sync missing) the copy is rolled back and the sync resolves afresh.
   */
  async function copyFromPrevious(input: SyncIds): Promise<{ from: string; result: SymbolsResult } | null> {
    const { syncId } = input;
    const previous = await previousSymbolsStep<SymbolsResult>(pool, syncId);
    if (!previous || previous.result.dangling !== 0) return null;
    // Copied once, the result names the sync it came from; what is recorded is what that sync resolved.
    delete previous.result.copiedFrom;
    if (await graphAlias(pool, syncId)) {
      // The sync shares its predecessor's graph (graph-alias.ts): the symbol graph is there, nothing to write.
      const result: SymbolsResult = { ...previous.result, copiedFrom: previous.id };
      await withTransaction(pool, async (client) => {
        await recordStep(client, syncId, SYMBOLS_STEP, result, previous.handoff ?? null);
        await dropSymbolImports(client, syncId);
      });
      return { from: previous.id, result };
    }
    if (!(await sameFiles(pool, syncId, previous.id))) return null;
    const labels = await loadGraphLabels(pool);
    return withTransaction(pool, (client) =>
      rolledBackIfNull(client, 'copy_symbols', async () => {
        const c = await copySymbolGraph(client, input, previous.id, labels);
        const same =
          SYMBOL_EDGE_LABELS.every((l) => c.edges[l] === previous.result.edges[l]) &&
          c.unresolvedFiles === previous.result.unresolvedFiles;
        if (!same) return null;
        const result: SymbolsResult = { ...previous.result, edges: c.edges, copiedFrom: previous.id };
        await recordStep(client, syncId, SYMBOLS_STEP, result, previous.handoff ?? null);
        await dropSymbolImports(client, syncId);
        return { from: previous.id, result };
      }),
    );
  }

  /** Every file's facts and imports from the database, resolved on the resolver's thread, then written. */
  async function resolveFromStore(input: SyncIds, hb: Heartbeat, started: number): Promise<SymbolsResult> {
    const { syncId, sourceId } = input;
    const { fileVertices, imports } = await writtenFilesAndImports(pool, syncId);
    const facts = await loadSymbolFactsJson(pool, syncId);
    hb.check();
    const resolved = await resolveOnThread(facts.map((f) => ({ ...f, imports: imports.get(f.file_path) ?? [] })));
    const resolveMs = Date.now() - started;
    hb.check();
    const result = await writeResolvedGraph(pool, input, facts.length, resolved, hb, { fileVertices });
    log.info('sync_symbols', {
      sync_id: syncId,
      source_id: sourceId,
      files: result.files,
      edges: result.edges,
      unresolved: result.unresolved,
      resolve_ms: resolveMs,
      ms: Date.now() - started,
    });
    return result;
  }

  async function resolveSymbols(input: SyncIds): Promise<SymbolsResult> {
    const { syncId, sourceId } = input;
    const done = await recordedResult<SymbolsResult>(pool, syncId, SYMBOLS_STEP);
    if (done) return done;
    const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
    try {
      await claimRun(pool, input);
      const started = Date.now();
      const copied = await copyFromPrevious(input);
      if (copied) {
        log.info('sync_symbols', {
          sync_id: syncId,
          source_id: sourceId,
          copied_from: copied.from,
          ms: Date.now() - started,
        });
        return copied.result;
      }
      return await resolveFromStore(input, hb, started);
    } finally {
      hb.stop();
    }
  }
  return { resolveSymbols };
}
