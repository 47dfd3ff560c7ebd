/**
 * resolveSymbols (issue 28): the symbol graph of a sync. Runs beside resolveDependencies, after every batch is
 * written, on any worker (nothing of the clone is needed):
 *   1. every file's symbol facts: stored once per content (symbol_facts), written by this sync's batches for the
 *      files it analysed and by an earlier sync for the files it reused, so a re-sync parses nothing again;
 *   2. every file's imports with the files they resolve to in this tree (the write steps' hand-off);
 *   3. the engine's pure, deterministic resolver over all of them (engine/symbols: resolveSymbolGraph), so an
 *      incremental sync gets exactly the edges a full sync of the same commit gets;
 *   4. one transaction: the edges (calls, inherits, implements, overrides, references) between this sync's Symbol
 *      vertices, the unresolved uses per file, the ledger row `symbols`; the imports are then dropped from the
 *      hand-off (nothing reads them later).
 * Idempotent like the other writing steps: a repeated step returns the recorded result.
 */
import { withTransaction } from '../../lib/db.ts';
import { resolveSymbolGraph, type ResolvedImport, type SymbolFileInput } from '../../engine/symbols/index.ts';
import type { SymbolsResult, SyncIds } from '../../workflows/sync-types.ts';
import {
  loadGraphLabels,
  loadSymbolFacts,
  recordIssues,
  symbolVertices,
  writeSymbolEdges,
  writeUnresolved,
} from '../store/index.ts';
import type { ActivityDeps } from './deps.ts';
import { startHeartbeat } from './heartbeat.ts';
import { claimRun } from './run-claim.ts';
import { SYMBOLS_STEP, recordStep, recordedResult, withSavepoints } from './steps.ts';

interface WriteHandoff {
  files: Array<[string, string]>;
  symbol_imports?: Array<[string, ResolvedImport[]]>;
}

export function createResolveSymbols({ pool, settings, log }: ActivityDeps) {
  async function resolveSymbols(input: SyncIds): Promise<SymbolsResult> {
    const { syncId, sourceId } = input;
    const done = await recordedResult<SymbolsResult>(pool, syncId, SYMBOLS_STEP);
    if (done) return done;
    const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
    try {
      await claimRun(pool, input);
      const started = Date.now();
      const rows = await pool.query<{ handoff: WriteHandoff }>(
        `SELECT jsonb_build_object('files', handoff -> 'files', 'symbol_imports', handoff -> 'symbol_imports')
                AS handoff
           FROM sync_steps WHERE sync_id = $1 AND step LIKE 'write %'`,
        [syncId],
      );
      const fileVertices = new Map<string, string>();
      const imports = new Map<string, ResolvedImport[]>();
      for (const { handoff } of rows.rows) {
        for (const [path, vertex] of handoff.files ?? []) fileVertices.set(vertex, path);
        for (const [path, list] of handoff.symbol_imports ?? []) imports.set(path, list);
      }
      const facts = await loadSymbolFacts(pool, syncId);
      hb.check();
      const files: SymbolFileInput[] = facts.map((f) => ({
        file_path: f.file_path,
        language: f.language,
        facts: f.facts,
        imports: imports.get(f.file_path) ?? [],
      }));
      const resolved = resolveSymbolGraph({ files });
      const resolveMs = Date.now() - started;
      hb.check();
      const labels = await loadGraphLabels(pool);
      const vertexOf = await symbolVertices(pool, fileVertices);
      hb.check();
      const result = await withTransaction(pool, async (client) => {
        const w = await writeSymbolEdges(withSavepoints(client), input, resolved.edges, vertexOf, labels);
        const unresolvedFiles = await writeUnresolved(client, syncId, resolved.unresolved);
        await recordIssues(client, syncId, w.issues);
        const result: SymbolsResult = {
          files: files.length,
          edges: w.edges,
          unresolved: resolved.stats.unresolved,
          unresolvedFiles,
          external: resolved.stats.external,
          dangling: w.dangling,
        };
        await recordStep(client, syncId, SYMBOLS_STEP, result, { stats: resolved.stats });
        // The imports served their one purpose; the hand-off keeps only what later steps read.
        await client.query(
          `UPDATE sync_steps SET handoff = handoff - 'symbol_imports'
            WHERE sync_id = $1 AND step LIKE 'write %' AND handoff ? 'symbol_imports'`,
          [syncId],
        );
        return result;
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
    } finally {
      hb.stop();
    }
  }
  return { resolveSymbols };
}
