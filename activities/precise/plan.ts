/**
 * planPrecise and notePrecise (issue 29), on the shared queue: which languages of a sync the precise tier runs, and
 * on which queue. A language runs when the sync has files of it and a live precise worker (one that refreshed its
 * declaration in precise_workers within PRECISE_WORKER_TTL) declares its indexer; each language present without such
 * a worker becomes one sync issue (phase precise), and the sync completes with its heuristic edges. A source whose
 * config says `precise: false` runs none (and has no issue: it was asked for).
 */
import type { Pool } from '../../lib/db.ts';
import type { PrecisePlan, PrecisePlanInput, PreciseNoteInput } from '../../workflows/sync-types.ts';
import { recordIssues } from '../store/index.ts';
import { livePreciseWorkers, preciseSetting, syncLanguages } from '../store/precise.ts';
import { INDEXER_LANGUAGES, INDEXER_NAMES, type PreciseLanguage } from './indexers.ts';
import { PRECISE_LANGUAGES } from './settings.ts';

/** A precise worker refreshes its row every 20 s; one not seen for this long is gone. */
export const PRECISE_WORKER_TTL_SECONDS = 90;

export function createPrecisePlan({ pool }: { pool: Pool }) {
  /**
   * Planned right after the clone from the clone's languages (`languages`, by extension), or, as before, after the
   * writes from the sync's files.
   */
  async function planPrecise({ syncId, sourceId, languages }: PrecisePlanInput): Promise<PrecisePlan> {
    const cfg = await preciseSetting(pool, syncId, sourceId);
    // A sync sharing its predecessor's graph (an unchanged re-sync, schema V50) has that sync's precise edges already.
    if (cfg?.precise === false || cfg?.shared === true) return { run: [], skipped: [] };
    const present = new Set(languages ?? (await syncLanguages(pool, syncId)));
    const wanted = PRECISE_LANGUAGES.filter((l) => INDEXER_LANGUAGES[l].some((x) => present.has(x)));
    if (wanted.length === 0) return { run: [], skipped: [] };
    const workers = await livePreciseWorkers(pool, PRECISE_WORKER_TTL_SECONDS);
    const plan: PrecisePlan = { run: [], skipped: [] };
    for (const language of wanted) {
      const w = workers.find((r) => r.indexers[language] !== undefined);
      const decl = w?.indexers[language];
      if (!decl) {
        plan.skipped.push(language);
        continue;
      }
      plan.run.push({ language, indexer: decl.version, queue: decl.queue, timeoutMs: decl.wall_ms + 15 * 60_000 });
    }
    if (plan.skipped.length > 0) {
      await recordIssues(
        pool,
        syncId,
        plan.skipped.map((language) => ({
          level: 'info' as const,
          phase: 'precise',
          code: 'precise_no_worker',
          message: `no precise worker with ${INDEXER_NAMES[language as PreciseLanguage]} is running: the ${language} symbol edges stay heuristic`,
          context: { language },
        })),
      );
    }
    return plan;
  }

  /** A precise step that did not finish (no worker took it in time, or it failed past its retries): one issue. */
  async function notePrecise(input: PreciseNoteInput): Promise<void> {
    await recordIssues(pool, input.syncId, [
      {
        level: 'warning',
        phase: 'precise',
        code: 'precise_step_failed',
        message: `the precise step for ${input.language} did not complete (${input.message}): heuristic edges kept`,
        context: { language: input.language },
      },
    ]);
  }

  return { planPrecise, notePrecise };
}
