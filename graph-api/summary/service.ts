/**
 * Spec graph rules 3-4: file summaries.
 *
 * - force=false and a cached description → `cache`, no model call.
 * - no chunks → `no_content`.
 * - otherwise reconstruct → neighbours → prompt → dense model, with the budget scaled 1.0, 0.5, 0.25 on
 *   context-window errors; success is stored in description and description_generated_at (`llm`); when every attempt
 *   fails (or a non-context error ends the attempts) → `llm_failed`, nothing stored. The text is never embedded.
 *
 * One model call per file at a time: requests in this process for a file being summarised share its promise, and
 * across processes a session advisory lock on the file id serialises generation; whoever gets the lock second finds
 * the fresh description and returns it as `cache`.
 */
import type { Pool, PoolClient } from '../../lib/db.ts';
import type { Logger } from '../../lib/log.ts';
import { reconstruct } from '../file/reconstruct.ts';
import type { FileRecordRow } from '../graph/node-queries.ts';
import { chunksOf } from '../graph/node-queries.ts';
import { neighborContext } from './context.ts';
import type { DenseClient } from './dense-client.ts';
import { SYSTEM_PROMPT, buildPrompt, type SummaryBudget } from './prompt.ts';

export const BUDGET_SCALES = [1, 0.5, 0.25] as const;
/** First key of the advisory lock pair; the second is hashtext(file id). */
const LOCK_CLASS = 730_120_261;

export type SummarySource = 'cache' | 'llm' | 'no_content' | 'llm_failed';

export interface SummaryResult {
  node_id: string;
  sync_id: string;
  file_id: string;
  source: SummarySource;
  summary: string | null;
  generated_at: string | null;
  model?: string;
  attempts?: number;
  error?: string;
}

export interface SummaryRequest {
  nodeId: string;
  file: FileRecordRow;
  force: boolean;
}

export interface SummaryService {
  summarize(req: SummaryRequest): Promise<SummaryResult>;
}

export interface SummaryServiceOptions {
  pool: Pool;
  dense: DenseClient;
  log: Logger;
  budget: SummaryBudget;
}

interface Cached {
  description: string | null;
  description_generated_at: Date | null;
}

export function createSummaryService(o: SummaryServiceOptions): SummaryService {
  const inflight = new Map<string, Promise<SummaryResult>>();

  const base = (req: SummaryRequest) => ({ node_id: req.nodeId, sync_id: req.file.sync_id, file_id: req.file.id });

  const cached = (req: SummaryRequest, c: Cached): SummaryResult => ({
    ...base(req),
    source: 'cache',
    summary: c.description,
    generated_at: c.description_generated_at?.toISOString() ?? null,
  });

  async function readCached(db: Pool | PoolClient, fileId: string): Promise<Cached> {
    const r = await db.query<Cached>(`SELECT description, description_generated_at FROM file_records WHERE id = $1`, [
      fileId,
    ]);
    return r.rows[0] ?? { description: null, description_generated_at: null };
  }

  async function generate(req: SummaryRequest): Promise<SummaryResult> {
    const { file } = req;
    const chunks = await chunksOf(o.pool, file.id);
    if (chunks.length === 0) return { ...base(req), source: 'no_content', summary: null, generated_at: null };

    const seen = req.file.description_generated_at?.getTime() ?? null;
    const lock = await o.pool.connect();
    try {
      await lock.query('SELECT pg_advisory_lock($1, hashtext($2))', [LOCK_CLASS, file.id]);
      // Another process may have finished a summary of this file while we waited for the lock.
      const now = await readCached(lock, file.id);
      const fresh = now.description_generated_at?.getTime() ?? null;
      // Not forced: any description is good. Forced: only one written after this request read the record.
      if (now.description !== null && (!req.force || fresh !== seen)) return cached(req, now);
      return await callModel(req, chunks);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, file.id]).catch(() => undefined);
      lock.release();
    }
  }

  async function callModel(req: SummaryRequest, chunks: Awaited<ReturnType<typeof chunksOf>>): Promise<SummaryResult> {
    const { file } = req;
    const started = Date.now();
    const { content } = reconstruct(chunks);
    const context = await neighborContext(o.pool, file.id, o.budget.edgeNeighbors);
    let attempts = 0;
    let lastError = '';
    for (const scale of BUDGET_SCALES) {
      attempts++;
      const prompt = buildPrompt(file, content, context, o.budget, scale);
      const outcome = await o.dense.complete(SYSTEM_PROMPT, prompt);
      if (outcome.ok) {
        const saved = await o.pool.query<{ description_generated_at: Date }>(
          `UPDATE file_records SET description = $2, description_generated_at = now() WHERE id = $1
           RETURNING description_generated_at`,
          [file.id, outcome.text],
        );
        const at = saved.rows[0]?.description_generated_at ?? new Date();
        o.log.info('summary_generated', { file_id: file.id, attempts, scale, ms: Date.now() - started });
        return {
          ...base(req),
          source: 'llm',
          summary: outcome.text,
          generated_at: at.toISOString(),
          model: o.dense.model,
          attempts,
        };
      }
      lastError = outcome.message;
      if (!outcome.contextOverflow) break;
    }
    o.log.warning('summary_failed', { file_id: file.id, attempts, error: lastError, ms: Date.now() - started });
    return {
      ...base(req),
      source: 'llm_failed',
      summary: null,
      generated_at: null,
      model: o.dense.model,
      attempts,
      error: lastError,
    };
  }

  return {
    async summarize(req) {
      if (!req.force && req.file.description !== null) return cached(req, req.file);
      const running = inflight.get(req.file.id);
      if (running) return { ...(await running), node_id: req.nodeId };
      const p = generate(req).finally(() => inflight.delete(req.file.id));
      inflight.set(req.file.id, p);
      return p;
    },
  };
}
