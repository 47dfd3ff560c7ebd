/**
 * Spec graph rules 3-4: file summaries.
 *
 * - force=false and a cached description → `cache`, no model call.
 * - no chunks → `no_content`.
 * - otherwise reconstruct → neighbours → prompt → dense model, with the budget scaled 1.0, 0.5, 0.25 on
 *   context-window errors; success is stored in description and description_generated_at (`llm`); when every attempt
 *   fails (or a non-context error ends the attempts) → `llm_failed`, nothing stored. The text is never embedded.
 *
 * Load: generation runs under a limiter (SUMMARY_CONCURRENCY at once, SUMMARY_QUEUE_SIZE waiting, each wait capped at
 * SUMMARY_QUEUE_TIMEOUT_SECONDS; past that 503 with Retry-After). No database connection is held while the model
 * answers or while waiting for another summary: each query takes a connection and gives it back. With a 3 s model, 14
 * concurrent requests used to take every pooled connection (an advisory-lock session each, then asking the same pool
 * for more) and wedge the component for good.
 *
 * One model call per file at a time: requests in this process for a file being summarised share its promise, and
 * across processes a lease row (summary_leases, V15) serialises generation; whoever finds a live lease polls for the
 * fresh description and returns it as `cache`, or takes over once the lease is gone or has expired.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from '../../lib/db.ts';
import { createLimiter, type Limiter } from '../../lib/limiter.ts';
import type { Logger } from '../../lib/log.ts';
import { reconstruct } from '../file/reconstruct.ts';
import type { FileRecordRow } from '../graph/node-queries.ts';
import { chunksOf } from '../graph/node-queries.ts';
import { neighborContext } from './context.ts';
import type { DenseClient } from './dense-client.ts';
import { SYSTEM_PROMPT, buildPrompt, type SummaryBudget } from './prompt.ts';
import { claimLease, readSummary, releaseLease, saveSummary, type CachedSummary } from './queries.ts';

export const BUDGET_SCALES = [1, 0.5, 0.25] as const;
/** Defaults of the limiter (the component's configuration sets them): sized to a 10-connection pool. */
export const SUMMARY_LIMITS = { concurrency: 4, queue: 64, queueTimeoutMs: 60_000 } as const;
/** Poll interval while another process holds a file's lease: from 100 ms, doubling, at most 2 s. */
const POLL_MIN_MS = 100;
const POLL_MAX_MS = 2000;

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
  /** The summaries' own pool (the component gives them one of SUMMARY_CONCURRENCY connections, apart from reads). */
  pool: Pool;
  dense: DenseClient;
  log: Logger;
  budget: SummaryBudget;
  limits?: { concurrency: number; queue: number; queueTimeoutMs: number };
  /** How long a lease holds before others may take it over (a crashed holder); default 3 model timeouts + 30 s. */
  leaseMs?: number;
}

const base = (req: SummaryRequest) => ({ node_id: req.nodeId, sync_id: req.file.sync_id, file_id: req.file.id });

const cached = (req: SummaryRequest, c: CachedSummary): SummaryResult => ({
  ...base(req),
  source: 'cache',
  summary: c.description,
  generated_at: c.description_generated_at?.toISOString() ?? null,
});

/** The model's summary of the file, its budget halved while the prompt overflows the context; stored when made. */
async function callModel(
  o: SummaryServiceOptions,
  req: SummaryRequest,
  chunks: Awaited<ReturnType<typeof chunksOf>>,
): Promise<SummaryResult> {
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
      const at = (await saveSummary(o.pool, file.id, outcome.text)) ?? new Date();
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

export function createSummaryService(o: SummaryServiceOptions): SummaryService {
  const inflight = new Map<string, Promise<SummaryResult>>();
  const limiter: Limiter = createLimiter({ name: 'summary', ...(o.limits ?? SUMMARY_LIMITS) });
  const leaseMs = o.leaseMs ?? 3 * o.dense.timeoutMs + 30_000;
  const host = hostname();

  const release = (fileId: string, holder: string) =>
    releaseLease(o.pool, fileId, holder).catch((err: unknown) =>
      o.log.warning('summary_lease_release_failed', { file_id: fileId, error: err }),
    );

  async function generate(req: SummaryRequest): Promise<SummaryResult> {
    const { file } = req;
    const chunks = await chunksOf(o.pool, file.id);
    if (chunks.length === 0) return { ...base(req), source: 'no_content', summary: null, generated_at: null };

    const seen = req.file.description_generated_at?.getTime() ?? null;
    const holder = `${host}:${process.pid}:${randomUUID()}`;
    const deadline = Date.now() + leaseMs;
    let pause = POLL_MIN_MS;
    // Not forced: any description is good. Forced: only one written after this request read the record.
    const usable = (c: CachedSummary) =>
      c.description !== null && (!req.force || (c.description_generated_at?.getTime() ?? null) !== seen);
    for (;;) {
      // Another process may have finished a summary of this file meanwhile.
      const now = await readSummary(o.pool, file.id);
      if (usable(now)) return cached(req, now);
      if (await claimLease(o.pool, file.id, holder, leaseMs)) {
        // The holder before may have written its summary and released the lease between the read above and the
        // claim: read again now that nobody else can write one (else the model is called twice for one file).
        const after = await readSummary(o.pool, file.id);
        if (!usable(after)) break;
        await release(file.id, holder);
        return cached(req, after);
      }
      if (Date.now() > deadline) {
        // A lease that outlives its own expiry cannot happen (claim takes expired ones over); this bounds the loop.
        throw new Error(`the summary lease of file ${file.id} was not released within ${leaseMs} ms`);
      }
      await sleep(pause);
      pause = Math.min(POLL_MAX_MS, pause * 2);
    }
    try {
      return await callModel(o, req, chunks);
    } finally {
      await release(file.id, holder);
    }
  }

  return {
    async summarize(req) {
      if (!req.force && req.file.description !== null) return cached(req, req.file);
      const running = inflight.get(req.file.id);
      if (running) return { ...(await running), node_id: req.nodeId };
      const p = limiter.run(() => generate(req)).finally(() => inflight.delete(req.file.id));
      inflight.set(req.file.id, p);
      return p;
    },
  };
}
