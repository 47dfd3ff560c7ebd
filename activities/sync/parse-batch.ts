/**
 * parseBatch: parses and chunks one batch of the clone's files (BATCH_FILES, in the walk's sorted order) through
 * the engine's worker threads, heartbeating, with the parsing progress of the whole run. Runs on the worker that
 * holds the clone (its host queue); the analyses stay in that worker's memory for writeBatch, only counts go back
 * to the workflow. Idempotent: a repeat parses again and replaces the batch's analyses.
 */
import type { BatchInput, ParseBatchResult } from '../../workflows/sync-types.ts';
import type { FileAnalysis } from '../../engine/types.ts';
import type { ActivityDeps } from './helpers/deps.ts';
import { startHeartbeat } from './helpers/heartbeat.ts';
import { ProgressReporter } from './helpers/progress.ts';
import { claimRun } from './helpers/run-claim.ts';
import { batchCount, batchFiles, batchStart, type Workspace } from './helpers/workspace.ts';
import { EarlySymbols } from './helpers/early-symbols.ts';
import { reuseOptions } from '../reuse/incremental.ts';
import { symbolGraphEnabled } from '../reuse/reuse.ts';
import type { ReusedFile } from '../../engine/types.ts';

/**
 * The symbol graph resolves on this worker while the batches are written (early-symbols.ts) when this process parses
 * the run's first batch and the sync analyses every file itself: the graph on, nothing reusable from an earlier sync.
 */
function earlySymbols(ws: Workspace, batch: number, symbolGraph: boolean): EarlySymbols | undefined {
  if (batch === 0 && !ws.symbols && symbolGraph && !ws.graphOf && (ws.reuse?.plan.reusable.size ?? 0) === 0)
    ws.symbols = new EarlySymbols(ws.bounds ? ws.bounds.length - 1 : batchCount(ws.tree.files.length));
  return ws.symbols;
}

export function createParseBatch({ pool, engine, settings, log, workspaces }: ActivityDeps) {
  async function parseBatch(input: BatchInput): Promise<ParseBatchResult> {
    const { syncId, sourceId, batch } = input;
    const ws = workspaces.get(syncId, `parse batch ${batch}`);
    const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
    const progress = new ProgressReporter(pool, syncId, sourceId, settings.progressIntervalMs, log);
    try {
      const run = await claimRun(pool, input);
      const files = batchFiles(ws, batch);
      const total = ws.tree.files.length;
      const offset = batchStart(ws, batch);
      if (batch === 0) await progress.phase('parsing', total);
      const analyses: FileAnalysis[] = [];
      const reused: ReusedFile[] = [];
      let chunks = 0;
      let symbols = 0;
      const symbolGraph = symbolGraphEnabled(run.config_snapshot);
      const stream = engine.analyzeFiles(ws.tree, files, {
        maxFileBytes: settings.maxFileBytes,
        ...(symbolGraph ? { symbolFactsJson: true } : { symbolFacts: false }),
        ...(settings.parseThreads ? { threads: settings.parseThreads } : {}),
        ...reuseOptions(ws.reuse, ws.unchanged, (f) => {
          reused.push(f);
          progress.report('parsing', offset + analyses.length + reused.length, total);
        }),
      });
      for await (const a of stream) {
        hb.check();
        analyses.push(a);
        chunks += a.chunks.length;
        symbols += a.symbols.length;
        progress.report('parsing', offset + analyses.length + reused.length, total);
      }
      hb.check();
      await progress.flush();
      earlySymbols(ws, batch, symbolGraph)?.parsed(batch, ws.tree, analyses);
      ws.parsed.set(batch, analyses);
      ws.reused?.set(batch, reused);
      ws.lastUsed = Date.now();
      return { files: analyses.length + reused.length, chunks, symbols };
    } finally {
      hb.stop();
    }
  }
  return { parseBatch };
}
