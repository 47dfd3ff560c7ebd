/**
 * writeBatch: writes one parsed batch (up to 500 files) in one transaction: its file records, chunks, File and
 * Symbol vertices and defines edges (statements of at most 500 rows), its issues (batch 0 also carries the walk's
 * tree-level issues), and its row in the step ledger with what later steps need (File vertex ids, resolved imports,
 * file embedding texts). Runs on the worker that holds the parsed batch in memory (its host queue).
 *
 * Idempotent: a batch whose ledger row exists returns the recorded counts, so a retry, a resumed sync or an
 * operator's Reset never writes a batch twice; a batch is all there or not at all.
 */
import { withTransaction } from '../../lib/db.ts';
import type { BatchInput, WriteBatchResult } from '../../workflows/sync-types.ts';
import type { EngineIssue } from '../../engine/types.ts';
import {
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
  type GraphFile,
  type ReusedGraphResult,
} from '../store/index.ts';
import type { ActivityDeps } from './deps.ts';
import { startHeartbeat } from './heartbeat.ts';
import { claimRun } from './run-claim.ts';
import { recordStep, recordedResult, withSavepoints, writeStep } from './steps.ts';
import { workspaceLost } from './workspace.ts';
import { reusedGraph, reusedRows } from './incremental.ts';
import { symbolGraphEnabled } from './reuse.ts';
import { importTargets, resolveImportTargets, type ResolvedImport } from '../../engine/symbols/index.ts';

export function createWriteBatch({ pool, settings, workspaces }: ActivityDeps) {
  async function writeBatch(input: BatchInput): Promise<WriteBatchResult> {
    const { syncId, sourceId, batch } = input;
    const step = writeStep(batch);
    const done = await recordedResult<WriteBatchResult>(pool, syncId, step);
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
      const result = await withTransaction(pool, async (client) => {
        const tx = withSavepoints(client);
        const fileCtx = {
          syncId,
          sourceId,
          commitSha: ws.commitSha,
          commitAt: ws.commitAt,
          ...(ws.reuse ? { analysisKey: ws.reuse.key } : {}),
        };
        const written = await writeFileRecords(tx, fileCtx, analyses);
        // Files whose path and content equal the previous sync's: a row pointing at the same content (issue 12).
        const carried = ws.reuse
          ? await writeReusedFileRecords(tx, fileCtx, reusedRows(ws.reuse, reused))
          : { ids: new Map<string, string>(), issues: [] };
        const issues: EngineIssue[] = [...(batch === 0 ? ws.tree.issues : []), ...written.issues, ...carried.issues];
        const items: FileChunks[] = [];
        const graphFiles: GraphFile[] = [];
        const dependencies: Array<[string, Array<[string, number]>]> = [];
        const embedInputs: Array<[string, string]> = [];
        // The symbol graph's inputs (issue 28): facts of analysed files (stored once per content), and every file's
        // imports with the files they resolve to in this tree (for resolveSymbols, which runs without the clone).
        const facts: FactsRow[] = [];
        const symbolImports: Array<[string, ResolvedImport[]]> = [];
        let binaryFiles = 0;
        let symbols = 0;
        for (const f of analyses) {
          issues.push(...f.issues);
          const fileId = written.ids.get(f.file_path);
          if (!fileId) continue;
          if (f.binary) binaryFiles++;
          symbols += f.symbols.length;
          if (f.chunks.length > 0) items.push({ fileId, filePath: f.file_path, chunks: f.chunks });
          graphFiles.push({
            fileId,
            file_path: f.file_path,
            name: f.name,
            type: f.type,
            domain: f.domain,
            symbols: f.symbols,
            dependencies: f.dependencies,
          });
          if (f.dependencies.length > 0)
            dependencies.push([f.file_path, f.dependencies.map((d) => [d.target_path, d.weight])]);
          if (embeddingsOn && f.embedding_text) embedInputs.push([fileId, f.embedding_text]);
          if (f.symbol_facts) {
            facts.push({ content_hash: f.content_hash, language: f.language, facts: f.symbol_facts });
            if (f.imports && f.imports.length > 0) symbolImports.push([f.file_path, importTargets(ws.tree, f)]);
          }
        }
        await writeSymbolFacts(tx, ws.reuse?.key ?? '', facts);
        let reusedChunks = 0;
        let reusedWithoutVector = 0;
        let copied: ReusedGraphResult = { vertexByPath: new Map(), symbolVertices: 0, definesEdges: 0 };
        if (ws.reuse) {
          const r = reusedGraph(ws.reuse, reused, carried.ids);
          for (const d of r.depending)
            dependencies.push([d.file_path, d.dependencies.map((x) => [x.target_path, x.weight])]);
          issues.push(...r.issues);
          binaryFiles += r.binaryFiles;
          symbols += r.symbols;
          reusedChunks = r.chunks;
          reusedWithoutVector = r.chunksWithoutVector;
          for (const f of reused) {
            const p = ws.reuse.plan.reusable.get(f.file_path);
            if (!symbolGraph || !p || !carried.ids.has(f.file_path) || p.imports.length === 0) continue;
            symbolImports.push([f.file_path, resolveImportTargets(p.language, f.file_path, p.imports, ws.tree)]);
          }
          // Their File and Symbol vertices and defines edges: written inside the database from the stored rows.
          if (carried.ids.size > 0) copied = await writeReusedGraph(tx, { syncId, sourceId }, carried.ids, labels);
        }
        hb.check();
        const c = await writeChunks(tx, syncId, items);
        hb.check();
        const g = await writeFileGraph(tx, { syncId, sourceId }, graphFiles, labels);
        issues.push(...c.issues, ...g.issues);
        const result: WriteBatchResult = {
          files: written.ids.size + carried.ids.size,
          binaryFiles,
          chunks: c.written + reusedChunks,
          symbols,
          fileVertices: g.vertexByPath.size + copied.vertexByPath.size,
          symbolVertices: g.symbolVertices + copied.symbolVertices,
          definesEdges: g.definesEdges + copied.definesEdges,
          issues: issues.length,
          // With embeddings off nothing is embedded (the steps return at once).
          embedInputs: embedInputs.length,
          chunksToEmbed: embeddingsOn ? c.written + reusedWithoutVector : 0,
        };
        hb.check();
        // Last: the issue cap's trigger locks the run's row until the commit.
        await recordIssues(client, syncId, issues);
        await recordStep(client, syncId, step, result, {
          files: [...g.vertexByPath, ...copied.vertexByPath],
          dependencies,
          ...(symbolImports.length > 0 ? { symbol_imports: symbolImports } : {}),
          // Absent when empty: finalizeSync then has no ledger row to rewrite.
          ...(embedInputs.length > 0 ? { embed_inputs: embedInputs } : {}),
        });
        return result;
      });
      ws.parsed.delete(batch);
      ws.reused?.delete(batch);
      return result;
    } finally {
      hb.stop();
    }
  }
  return { writeBatch };
}
