/**
 * writeReusedSymbols (issue 12): the Symbol vertices and defines edges of the files an incremental sync reused, one
 * part of them (the files at positions ≡ part mod parts of the sync's list, in batch order). The write batches leave
 * them out (BatchInput.deferReusedSymbols) and record each reused file's new File vertex and content in the ledger;
 * the workflow then runs the parts at once, beside resolveDependencies and the embedding steps, so the one cost an
 * unchanged file still has per sync — ~10 µs of database work per symbol, 72k symbols for CPython's standard
 * library — is spread over the database's cores instead of holding up every later step.
 *
 * Needs no clone (runs on any worker). One transaction with its ledger row (`symbols <part>/<parts>`): idempotent,
 * like writeBatch.
 */
import { withTransaction } from '../../lib/db.ts';
import type { ReusedSymbolsInput, ReusedSymbolsResult } from '../../workflows/sync-types.ts';
import { loadGraphLabels, writeReusedSymbols as insertReusedSymbols, type ReusedVertex } from '../store/index.ts';
import type { ActivityDeps } from './deps.ts';
import { startHeartbeat } from './heartbeat.ts';
import { claimRun } from './run-claim.ts';
import { recordStep, recordedResult, symbolsStep } from './steps.ts';

export function createWriteReusedSymbols({ pool, settings }: ActivityDeps) {
  async function writeReusedSymbols(input: ReusedSymbolsInput): Promise<ReusedSymbolsResult> {
    const { syncId, sourceId, part, parts } = input;
    const step = symbolsStep(part, parts);
    const done = await recordedResult<ReusedSymbolsResult>(pool, syncId, step);
    if (done) return done;
    const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
    try {
      await claimRun(pool, input);
      // Every write batch's reused files, in batch order; this part takes every parts-th one.
      const rows = await pool.query<{ v: ReusedVertex }>(
        `SELECT e.v FROM sync_steps s
           CROSS JOIN LATERAL jsonb_array_elements(s.handoff -> 'reused_vertices') WITH ORDINALITY AS e(v, n)
          WHERE s.sync_id = $1 AND s.step LIKE 'write %' AND s.handoff ? 'reused_vertices'
          ORDER BY s.step, e.n`,
        [syncId],
      );
      const files = rows.rows.map((r) => r.v).filter((_, i) => i % parts === part);
      const labels = await loadGraphLabels(pool);
      hb.check();
      return await withTransaction(pool, async (client) => {
        const written = await insertReusedSymbols(client, { syncId, sourceId }, files, labels);
        const result: ReusedSymbolsResult = { files: files.length, ...written };
        await recordStep(client, syncId, step, result);
        return result;
      });
    } finally {
      hb.stop();
    }
  }
  return { writeReusedSymbols };
}
