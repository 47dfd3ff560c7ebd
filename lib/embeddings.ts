/**
 * Client for an OpenAI-compatible embeddings endpoint (POST {EMBEDDING_URL} with { model, input: string[] }).
 * Batches inputs, bounds concurrent requests, and retries 5xx answers and connection errors with exponential
 * backoff and jitter. 4xx answers are not retried. Every vector is checked against the expected dimension.
 */
import { ServiceError } from './errors.ts';
import type { Logger } from './log.ts';
import { fetchFailure, recordModelCall, statusFailure, type ModelFailure } from './model-metrics.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export interface EmbeddingClientOptions {
  url: string;
  model: string;
  dimension: number;
  apiKey?: string;
  /** Inputs per request (default 64). */
  batchSize?: number;
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  /** Attempts per request, first included (default 5). */
  attempts?: number;
  /** First backoff in ms, doubled each retry (default 200). */
  backoffMs?: number;
  /** Per-request timeout in ms (default 60000). */
  timeoutMs?: number;
  log?: Logger;
}

export class EmbeddingError extends ServiceError {
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean, options?: { cause?: unknown }) {
    super('UPSTREAM_UNAVAILABLE', 503, message, { ...options, expose: true });
    this.retryable = retryable;
  }
}

export class EmbeddingClient {
  private readonly o: Required<Omit<EmbeddingClientOptions, 'apiKey' | 'log'>> &
    Pick<EmbeddingClientOptions, 'apiKey' | 'log'>;

  constructor(options: EmbeddingClientOptions) {
    this.o = { batchSize: 64, concurrency: 4, attempts: 5, backoffMs: 200, timeoutMs: 60_000, ...options };
  }

  /** Names the vectors this client produces (endpoint, model, dimension): vectors of another identity differ. */
  get identity(): string {
    return `${this.o.url} ${this.o.model} ${this.o.dimension}`;
  }

  get dimension(): number {
    return this.o.dimension;
  }

  /** Embeds one text. */
  async embedOne(text: string): Promise<number[]> {
    const [v] = await this.request([text]);
    if (!v) throw new EmbeddingError('embedding endpoint returned no vector', false);
    return v;
  }

  /**
   * Embeds many texts, in order. `onBatch` is called as each batch completes (in completion order) with the index
   * of its first input, so callers can write results while later batches are still in flight.
   */
  async embedMany(
    texts: string[],
    onBatch?: (start: number, vectors: number[][]) => Promise<void> | void,
  ): Promise<number[][]> {
    const out: number[][] = new Array<number[]>(texts.length);
    const starts: number[] = [];
    for (let i = 0; i < texts.length; i += this.o.batchSize) starts.push(i);
    let next = 0;
    const worker = async () => {
      while (next < starts.length) {
        const start = starts[next++]!;
        const vectors = await this.request(texts.slice(start, start + this.o.batchSize));
        vectors.forEach((v, k) => (out[start + k] = v));
        if (onBatch) await onBatch(start, vectors);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.concurrency, starts.length) }, worker));
    return out;
  }

  private async request(input: string[]): Promise<number[][]> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.o.attempts; attempt++) {
      try {
        return await this.once(input);
      } catch (err) {
        lastError = err;
        const retryable = err instanceof EmbeddingError ? err.retryable : true;
        if (!retryable || attempt === this.o.attempts) break;
        const wait = this.o.backoffMs * 2 ** (attempt - 1) * (0.5 + Math.random());
        this.o.log?.warning('embedding_retry', { attempt, wait_ms: Math.round(wait), error: err });
        await sleep(wait);
      }
    }
    if (lastError instanceof EmbeddingError) throw lastError;
    throw new EmbeddingError(
      `embedding request failed: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
      true,
      {
        cause: lastError,
      },
    );
  }

  /** One HTTP attempt, recorded in the model-call metrics. */
  private async once(input: string[]): Promise<number[][]> {
    const started = performance.now();
    let failure: ModelFailure = 'invalid_response';
    try {
      const out = await this.attempt(input, (f) => (failure = f));
      recordModelCall('embeddings', started);
      return out;
    } catch (err) {
      recordModelCall('embeddings', started, failure);
      throw err;
    }
  }

  private async attempt(input: string[], failed: (reason: ModelFailure) => void): Promise<number[][]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.o.apiKey) headers.authorization = `Bearer ${this.o.apiKey}`;
    let res: Response;
    try {
      res = await fetch(this.o.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.o.model, input }),
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
    } catch (err) {
      failed(fetchFailure(err));
      throw new EmbeddingError(
        `cannot reach the embedding endpoint: ${err instanceof Error ? err.message : String(err)}`,
        true,
        { cause: err },
      );
    }
    const text = await res.text();
    if (!res.ok) {
      failed(statusFailure(res.status));
      throw new EmbeddingError(
        `embedding endpoint answered ${res.status}: ${text.slice(0, 300)}`,
        res.status >= 500 || res.status === 429,
      );
    }
    let body: { data?: Array<{ index?: number; embedding?: unknown }> };
    try {
      body = JSON.parse(text) as typeof body;
    } catch (err) {
      throw new EmbeddingError('embedding endpoint returned invalid JSON', true, { cause: err });
    }
    const data = body.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new EmbeddingError(
        `embedding endpoint returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${input.length} inputs`,
        false,
      );
    }
    const out: number[][] = new Array<number[]>(input.length);
    data.forEach((d, i) => {
      const v = d.embedding;
      if (!Array.isArray(v) || v.length !== this.o.dimension || !v.every((x) => typeof x === 'number')) {
        throw new EmbeddingError(
          `embedding endpoint returned a vector of ${Array.isArray(v) ? v.length : 'no'} dimensions, expected ${this.o.dimension}`,
          false,
        );
      }
      out[d.index ?? i] = v;
    });
    return out;
  }
}
