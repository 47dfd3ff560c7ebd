/**
 * writeBatch: writes one parsed batch (up to 500 files) in one transaction: its file records, chunks, File and
 * Symbol vertices and defines edges (statements of at most 500 rows), its issues (batch 0 also carries the walk's
 * tree-level issues), and its row in the step ledger with what later steps need (File vertex ids, resolved imports,
 * file embedding texts). Runs on the worker that holds the parsed batch in memory (its host queue).
 *
 * Idempotent: a batch whose ledger row exists returns the recorded counts, so a retry, a resumed sync or an
 * operator's Reset never writes a batch twice; a batch is all there or not at all.
 */
import { CancelledFailure } from '@temporalio/activity';
import { withTransaction, type PoolClient } from '../../lib/db.ts';
import type { BatchInput, WriteBatchResult } from '../../workflows/sync-types.ts';
import type { EngineIssue, FileAnalysis, ReusedFile } from '../../engine/types.ts';
import {
  errorMessage,
  loadGraphLabels,
  recordIssues,
  writeChunks,
  writeFileGraph,
  writeFileRecords,
  writeReusedFileRecords,
  writeReusedGraph,
  writeSymbolFacts,
  type FactsRow,
  type FileChunks,
  type FileGraphResult,
  type FileWriteResult,
  type GraphFile,
  type GraphLabels,
  type ReusedGraphResult,
} from '../store/index.ts';
import type { ActivityDeps } from './helpers/deps.ts';
import { startHeartbeat, type Heartbeat } from './helpers/heartbeat.ts';
import { claimRun } from './helpers/run-claim.ts';
import { recordStep, recordedResult, withSavepoints, writeStep } from '../store/ledger.ts';
import { workspaceLost, type Workspace } from './helpers/workspace.ts';
import { reusedGraph, reusedRows } from '../reuse/incremental.ts';
import { symbolGraphEnabled } from '../reuse/reuse.ts';
import { importTargets, resolveImportTargets, type ResolvedImport } from '../../engine/symbols/index.ts';
import { writeResolvedGraph } from './resolve-symbols.ts';

/** One batch's write: what the transaction needs. */
interface BatchWrite {
  syncId: string;
  sourceId: string;
  batch: number;
  ws: Workspace;
  analyses: FileAnalysis[];
  reused: ReusedFile[];
  embeddingsOn: boolean;
  /** False when the run's config says `symbol_graph: false`: no import targets are handed to resolveSymbols. */
  symbolGraph: boolean;
  labels: GraphLabels;
  hb: Heartbeat;
}

/** The rows of a batch gathered from its analysed files, and what the reused ones add. */
interface BatchRows {
  issues: EngineIssue[];
  items: FileChunks[];
  graphFiles: GraphFile[];
  dependencies: Array<[string, Array<[string, number]>]>;
  embedInputs: Array<[string, string]>;
  /** The symbol graph's inputs (issue 28): facts of analysed files (stored once per content). */
  facts: FactsRow[];
  /** Every file's imports with the files they resolve to in this tree (for resolveSymbols, which runs without the clone). */
  symbolImports: Array<[string, ResolvedImport[]]>;
  /** The analysed files whose facts are stored (early-symbols.ts checks them against what its resolver was given). */
  factPaths: string[];
  binaryFiles: number;
  symbols: number;
}

/** The rows of the analysed files that got a file record. */
function analysedRows(b: BatchWrite, written: FileWriteResult, carried: FileWriteResult): BatchRows {
  const { ws, batch } = b;
  const early = ws.symbols?.inputsOf(batch);
  const rows: BatchRows = {
    issues: [...(batch === 0 ? ws.tree.issues : []), ...written.issues, ...carried.issues],
    items: [],
    graphFiles: [],
    dependencies: [],
    embedInputs: [],
    facts: [],
    symbolImports: [],
    factPaths: [],
    binaryFiles: 0,
    symbols: 0,
  };
  for (const f of b.analyses) {
    rows.issues.push(...f.issues);
    const fileId = written.ids.get(f.file_path);
    if (!fileId) continue;
    if (f.binary) rows.binaryFiles++;
    rows.symbols += f.symbols.length;
    if (f.chunks.length > 0) rows.items.push({ fileId, filePath: f.file_path, chunks: f.chunks });
    rows.graphFiles.push({
      fileId,
      file_path: f.file_path,
      name: f.name,
      type: f.type,
      domain: f.domain,
      symbols: f.symbols,
      dependencies: f.dependencies,
    });
    if (f.dependencies.length > 0)
      rows.dependencies.push([f.file_path, f.dependencies.map((d) => [d.target_path, d.weight])]);
    if (b.embeddingsOn && f.embedding_text) rows.embedInputs.push([fileId, f.embedding_text]);
    const facts = f.symbol_facts_json ?? f.symbol_facts;
    if (facts !== undefined) {
      // Made once when the batch was parsed, if the early resolver took them.
      const made = early?.get(f.file_path);
      rows.facts.push({ content_hash: f.content_hash, language: f.language, facts: made?.facts ?? facts });
      rows.factPaths.push(f.file_path);
      if (f.imports && f.imports.length > 0)
        rows.symbolImports.push([f.file_path, made?.imports ?? importTargets(ws.tree, f)]);
    }
  }
  return rows;
}

interface ReusedPart {
  chunks: number;
  chunksWithoutVector: number;
  copied: ReusedGraphResult;
}

/**
 * Files whose path and content equal the previous sync's (issue 12): their dependencies, issues and counts join the
 * batch's rows, and their File and Symbol vertices and defines edges are written inside the database from the stored
 * rows.
 */
async function writeReused(
  tx: PoolClient,
  b: BatchWrite,
  carried: FileWriteResult,
  rows: BatchRows,
): Promise<ReusedPart> {
  const part: ReusedPart = {
    chunks: 0,
    chunksWithoutVector: 0,
    copied: { vertexByPath: new Map(), symbolVertices: 0, definesEdges: 0 },
  };
  const reuse = b.ws.reuse;
  if (!reuse) return part;
  const r = reusedGraph(reuse, b.reused, carried.ids);
  for (const d of r.depending)
    rows.dependencies.push([d.file_path, d.dependencies.map((x) => [x.target_path, x.weight])]);
  rows.issues.push(...r.issues);
  rows.binaryFiles += r.binaryFiles;
  rows.symbols += r.symbols;
  part.chunks = r.chunks;
  part.chunksWithoutVector = r.chunksWithoutVector;
  for (const f of b.reused) {
    const p = reuse.plan.reusable.get(f.file_path);
    if (!b.symbolGraph || !p || !carried.ids.has(f.file_path) || p.imports.length === 0) continue;
    rows.symbolImports.push([f.file_path, resolveImportTargets(p.language, f.file_path, p.imports, b.ws.tree)]);
  }
  // Their File and Symbol vertices and defines edges, from the stored rows (none when the sync shares its
  // predecessor's graph: it is the same, graph-alias.ts).
  if (carried.ids.size > 0 && !b.ws.graphOf)
    part.copied = await writeReusedGraph(tx, { syncId: b.syncId, sourceId: b.sourceId }, carried.ids, b.labels);
  return part;
}

/**
 * The graph of a batch of a sync that shares its predecessor's graph (graph-alias.ts): no rows are written, and the
 * counts are those a write of the same files gives (a File vertex per file, a Symbol vertex and a defines edge per
 * symbol), so the sync's stats equal its predecessor's.
 */
function sharedGraph(files: number, symbols: number): FileGraphResult & { sharedFiles: number } {
  return { vertexByPath: new Map(), symbolVertices: symbols, definesEdges: symbols, issues: [], sharedFiles: files };
}

/** The batch in one transaction: file records, facts, the reused files, chunks, graph, then issues and the ledger. */
async function writeInTransaction(
  client: PoolClient,
  b: BatchWrite,
): Promise<{ result: WriteBatchResult; factPaths: string[]; symbolVertices?: ReadonlyMap<string, string> }> {
  const { syncId, sourceId, ws, hb } = b;
  const tx = withSavepoints(client);
  const fileCtx = {
    syncId,
    sourceId,
    commitSha: ws.commitSha,
    commitAt: ws.commitAt,
    ...(ws.reuse ? { analysisKey: ws.reuse.key } : {}),
  };
  const written = await writeFileRecords(tx, fileCtx, b.analyses);
  // Files whose path and content equal the previous sync's: a row pointing at the same content (issue 12).
  const carried = ws.reuse
    ? await writeReusedFileRecords(tx, fileCtx, reusedRows(ws.reuse, b.reused))
    : { ids: new Map<string, string>(), issues: [] };
  const rows = analysedRows(b, written, carried);
  await writeSymbolFacts(tx, ws.reuse?.key ?? '', rows.facts);
  const reusedPart = await writeReused(tx, b, carried, rows);
  hb.check();
  const c = await writeChunks(tx, syncId, rows.items);
  hb.check();
  const g: FileGraphResult & { sharedFiles?: number } = ws.graphOf
    ? sharedGraph(rows.graphFiles.length + carried.ids.size, rows.symbols)
    : await writeFileGraph(tx, { syncId, sourceId }, rows.graphFiles, b.labels);
  rows.issues.push(...c.issues, ...g.issues);
  const { copied } = reusedPart;
  const result: WriteBatchResult = {
    files: written.ids.size + carried.ids.size,
    binaryFiles: rows.binaryFiles,
    chunks: c.written + reusedPart.chunks,
    symbols: rows.symbols,
    fileVertices: g.vertexByPath.size + copied.vertexByPath.size + (g.sharedFiles ?? 0),
    symbolVertices: g.symbolVertices + copied.symbolVertices,
    definesEdges: g.definesEdges + copied.definesEdges,
    issues: rows.issues.length,
    // With embeddings off nothing is embedded (the steps return at once).
    embedInputs: rows.embedInputs.length,
    chunksToEmbed: b.embeddingsOn ? c.written + reusedPart.chunksWithoutVector : 0,
  };
  hb.check();
  // Last: the issue cap's trigger locks the run's row until the commit.
  await recordIssues(client, syncId, rows.issues);
  await recordStep(client, syncId, writeStep(b.batch), result, {
    files: [...g.vertexByPath, ...copied.vertexByPath],
    dependencies: rows.dependencies,
    ...(rows.symbolImports.length > 0 ? { symbol_imports: rows.symbolImports } : {}),
    // Absent when empty: finalizeSync then has no ledger row to rewrite.
    ...(rows.embedInputs.length > 0 ? { embed_inputs: rows.embedInputs } : {}),
  });
  return {
    result,
    factPaths: rows.factPaths,
    ...(g.symbolVertexByRef && !ws.graphOf ? { symbolVertices: g.symbolVertexByRef } : {}),
  };
}

/** No vertex of the batch was written from stored rows (writeReusedGraph): the write's own map holds them all. */
function copiedNone(ws: Workspace, reused: readonly ReusedFile[]): boolean {
  return reused.length === 0 && !ws.graphOf;
}

/**
 * After the last batch's write, the symbol graph the worker resolved while the batches were written (early-symbols.ts),
 * written as resolveSymbols would write it (which then finds its ledger row). Best effort: when the resolution is not
 * there or fails, resolveSymbols resolves from the database.
 */
async function writeEarlySymbols(deps: ActivityDeps, input: BatchInput, ws: Workspace, hb: Heartbeat): Promise<void> {
  const early = ws.symbols;
  const resolution = early?.resolution();
  if (!early || !resolution || input.batch !== early.batches - 1) return;
  const started = Date.now();
  try {
    // When the resolver ended, for the log (each part of the edges is written as soon as the thread hands it over).
    let resolvedAt = -1;
    resolution.output.then(
      () => (resolvedAt = Date.now()),
      () => undefined,
    );
    const result = await writeResolvedGraph(deps.pool, input, early.files(), resolution, hb, {
      whileWriting: true,
      vertexOf: early.vertices(),
    });
    const waited = resolvedAt === -1 ? -1 : resolvedAt - started;
    deps.log.info('sync_symbols', {
      sync_id: input.syncId,
      source_id: input.sourceId,
      files: result.files,
      edges: result.edges,
      unresolved: result.unresolved,
      early: true,
      waited_ms: waited,
      ms: Date.now() - started,
    });
  } catch (err) {
    if (err instanceof CancelledFailure) throw err;
    deps.log.warning('sync_symbols_early_failed', { sync_id: input.syncId, error: errorMessage(err) });
  } finally {
    early.close();
    ws.symbols = undefined;
  }
}

export function createWriteBatch(deps: ActivityDeps) {
  const { pool, settings, workspaces } = deps;
  async function writeBatch(input: BatchInput): Promise<WriteBatchResult> {
    const { syncId, sourceId, batch } = input;
    const done = await recordedResult<WriteBatchResult>(pool, syncId, writeStep(batch));
    if (done) return done;
    const ws = workspaces.get(syncId, `write batch ${batch}`);
    const analyses = ws.parsed.get(batch);
    if (!analyses) throw workspaceLost(syncId, `batch ${batch} is not parsed here`);
    const reused = ws.reused?.get(batch) ?? [];
    const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
    try {
      const run = await claimRun(pool, input);
      const embeddingsOn = run.config_snapshot.embeddings !== false;
      const symbolGraph = symbolGraphEnabled(run.config_snapshot);
      const labels = await loadGraphLabels(pool);
      hb.check();
      const { result, factPaths, symbolVertices } = await withTransaction(pool, (client) =>
        writeInTransaction(client, {
          syncId,
          sourceId,
          batch,
          ws,
          analyses,
          reused,
          embeddingsOn,
          symbolGraph,
          labels,
          hb,
        }),
      );
      ws.parsed.delete(batch);
      ws.reused?.delete(batch);
      ws.symbols?.stored(batch, factPaths, copiedNone(ws, reused) ? symbolVertices : undefined);
      await writeEarlySymbols(deps, input, ws, hb);
      return result;
    } finally {
      hb.stop();
    }
  }
  return { writeBatch };
}
