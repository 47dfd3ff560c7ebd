/**
 * Embeds many inputs in batches (one request per batch, EmbeddingClient retries 5xx and connection errors with
 * backoff), at most `concurrency` batches in flight, writing each batch's vectors as it completes. A batch that
 * still fails is reported and left without vectors. After `breakerFailures` consecutive failed batches the
 * endpoint is taken as down and the remaining batches are skipped (reported once), so a dead endpoint costs
 * seconds, not one full retry cycle per batch.
 */
import type { EmbeddingClient } from '../../../lib/embeddings.ts';

export interface EmbedItem {
  id: string;
  text: string;
  /** Shown in issues (e.g. the file path). */
  label: string;
}

export interface BatchFailure {
  items: EmbedItem[];
  error: string;
}

export interface EmbedAllResult {
  embedded: number;
  failures: BatchFailure[];
  /** Items never sent because the breaker opened. */
  skipped: EmbedItem[];
}

export interface EmbedAllOptions {
  batchSize: number;
  concurrency: number;
  breakerFailures: number;
  signal: AbortSignal;
  write: (pairs: Array<{ id: string; embedding: number[] }>) => Promise<void>;
  onProgress?: (done: number) => void;
}

/** The worker's embedding settings (PipelineSettings) as embedAll's batch size, concurrency and breaker. */
export function batchingOf(settings: {
  embeddingBatchSize: number;
  embeddingConcurrency: number;
  embeddingBreakerFailures: number;
}): Pick<EmbedAllOptions, 'batchSize' | 'concurrency' | 'breakerFailures'> {
  return {
    batchSize: settings.embeddingBatchSize,
    concurrency: settings.embeddingConcurrency,
    breakerFailures: settings.embeddingBreakerFailures,
  };
}

export async function embedAll(
  client: EmbeddingClient,
  items: EmbedItem[],
  o: EmbedAllOptions,
): Promise<EmbedAllResult> {
  const batches: EmbedItem[][] = [];
  for (let i = 0; i < items.length; i += o.batchSize) batches.push(items.slice(i, i + o.batchSize));
  const result: EmbedAllResult = { embedded: 0, failures: [], skipped: [] };
  let next = 0;
  let consecutiveFailures = 0;
  let done = 0;
  const worker = async () => {
    while (next < batches.length && !o.signal.aborted) {
      const batch = batches[next++]!;
      if (consecutiveFailures >= o.breakerFailures) {
        result.skipped.push(...batch);
        continue;
      }
      let vectors: number[][];
      try {
        vectors = await client.embedMany(batch.map((b) => b.text));
      } catch (err) {
        consecutiveFailures++;
        result.failures.push({ items: batch, error: err instanceof Error ? err.message : String(err) });
        continue;
      }
      consecutiveFailures = 0;
      await o.write(batch.map((b, k) => ({ id: b.id, embedding: vectors[k]! })));
      result.embedded += batch.length;
      done += batch.length;
      o.onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, batches.length) }, worker));
  return result;
}
