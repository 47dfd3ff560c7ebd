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
import type { SymbolEdge } from '../../engine/symbols/index.ts';
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
import { resolvedInParts, symbolEdgeCuts, type ResolvedParts } from './helpers/symbol-parts.ts';
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
 * The edges are written in parts, each its own transaction with its own ledger row (`symbols edges k/n`), on this many
 * connections at once (after the last write nothing else keeps the database busy, and one connection is one core).
 * A part is the edges whose calling symbol's file lies in a range of paths (the resolver's EdgeParts: the files cut
 * into parts of about a thousand files, at most eight: helpers/symbol-parts.ts), so that the resolver on the worker holding the
 * clone hands each part over as soon as it has passed its files, and the part is written while it resolves the rest
 * (early-symbols.ts). Each part's ledger row records the cuts; a part recorded by an earlier attempt is not written
 * again, and a later attempt cuts its edges at the recorded cuts (the resolver is deterministic: the same parts).
 */
const EDGE_WRITERS = 2;

interface EdgePart {
  edges: SymbolEdgeWriteResult['edges'];
  dangling: number;
  issues: SymbolEdgeWriteResult['issues'];
  /** The cuts of the parts (EdgeParts); absent in a part recorded by a worker that cut the edges by count (edgeParts). */
  cuts?: string[];
}

/**
 * How an earlier attempt cut the sync's edges, when it recorded a part: its cuts, or 'by count' (a worker before the
 * cuts: edgeParts, two parts); null when no part is recorded.
 */
async function recordedCuts(db: Pool, syncId: string): Promise<string[] | 'by count' | null> {
  const r = await db.query<{ result: EdgePart }>(
    `SELECT result FROM sync_steps WHERE sync_id = $1 AND step LIKE $2 LIMIT 1`,
    [syncId, `${SYMBOLS_STEP} edges %`],
  );
  const part = r.rows[0]?.result;
  return part === undefined ? null : (part.cuts ?? 'by count');
}

/** The edges cut into `n` contiguous parts of about equal size (fewer when they are few): how a worker before the cuts wrote them. */
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
  cuts: readonly string[] | null,
): Promise<EdgePart> {
  const done = await recordedResult<EdgePart>(pool, input.syncId, step);
  if (done) return done;
  return withTransaction(pool, async (client) => {
    const w = await writeSymbolEdges(withSavepoints(client), input, edges, vertexOf, labels);
    const part: EdgePart = {
      edges: w.edges,
      dangling: w.dangling,
      issues: w.issues,
      ...(cuts ? { cuts: [...cuts] } : {}),
    };
    await recordStep(client, input.syncId, step, part, null);
    return part;
  });
}

/**
 * Writes a resolved symbol graph once every batch is written: the edges between the sync's Symbol vertices (in parts,
 * each as soon as it is there, EDGE_WRITERS at once: above), then in one transaction the unresolved uses per file, the
 * edges' issues and the ledger row `symbols`; the imports are then dropped from the hand-off. `files`: the files
 * resolved. Parts cut otherwise than an earlier attempt recorded are refused (nothing written): the caller resolves
 * from the database, which cuts at the recorded cuts.
 */
export async function writeResolvedGraph(
  db: Pool,
  input: SyncIds,
  files: number,
  resolved: ResolvedParts,
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
  const recorded = await recordedCuts(db, syncId);
  const { cuts } = resolved;
  let done: EdgePart[];
  if (recorded === 'by count') {
    // Parts recorded by a worker that cut the edges by count: the rest cut the same way, from all the edges in the
    // resolver's order.
    const all = (await Promise.all(Array.from({ length: cuts.length + 1 }, (_, k) => resolved.part(k)))).flat();
    const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
    all.sort((a, b) => cmp(a.label, b.label) || cmp(a.from, b.from) || cmp(a.to, b.to));
    const parts = edgeParts(all, EDGE_WRITERS);
    done = await writeParts(parts.length, (k) => Promise.resolve(parts[k]!), null);
  } else {
    if (recorded !== null && (recorded.length !== cuts.length || recorded.some((c, i) => c !== cuts[i])))
      throw new Error(`symbol edges: parts recorded with other cuts (${recorded.length + 1} parts)`);
    done = await writeParts(cuts.length + 1, (k) => resolved.part(k), cuts);
  }
  hb.check();
  const output = await resolved.output;
  return withTransaction(db, async (client) => {
    const unresolvedFiles = await writeUnresolved(client, syncId, output.unresolved);
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
      unresolved: output.stats.unresolved,
      unresolvedFiles,
      external: output.stats.external,
      dangling: done.reduce((n, p) => n + p.dangling, 0),
      ...(opts.whileWriting ? { resolvedWhileWriting: true as const } : {}),
    };
    await recordStep(client, syncId, SYMBOLS_STEP, result, { stats: output.stats });
    await dropSymbolImports(client, syncId);
    return result;
  });

  /** Parts 0..n-1 written as each is there, EDGE_WRITERS at once; after a failure no new part starts. */
  async function writeParts(
    n: number,
    part: (k: number) => Promise<readonly SymbolEdge[]>,
    partCuts: readonly string[] | null,
  ): Promise<EdgePart[]> {
    const out = new Array<EdgePart>(n);
    let next = 0;
    let failed = false;
    const writer = async (): Promise<void> => {
      while (!failed && next < n) {
        const k = next++;
        try {
          const edges = await part(k);
          hb.check();
          out[k] = await writeEdgePart(
            db,
            input,
            `${SYMBOLS_STEP} edges ${k + 1}/${n}`,
            edges,
            vertexOf,
            labels,
            partCuts,
          );
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    };
    const settled = await Promise.allSettled(Array.from({ length: Math.min(EDGE_WRITERS, n) }, writer));
    const rejected = settled.find((w) => w.status === 'rejected');
    if (rejected) throw rejected.reason;
    return out;
  }
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
    // Cut where an earlier attempt's recorded parts were cut (the worker that resolved while writing), if any.
    const recorded = await recordedCuts(pool, syncId);
    const cuts = Array.isArray(recorded) ? recorded : symbolEdgeCuts(facts.map((f) => f.file_path));
    const result = await writeResolvedGraph(pool, input, facts.length, resolvedInParts(resolved, cuts), hb, {
      fileVertices,
    });
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
