/** Turns embedding failures into sync issues: one per failed batch, one for the batches a breaker skipped. */
import type { EngineIssue } from '../../../engine/types.ts';
import type { EmbedAllResult } from './embed-batches.ts';

export function embeddingIssues(phase: 'embedding_summaries' | 'embedding_chunks', r: EmbedAllResult): EngineIssue[] {
  const what = phase === 'embedding_summaries' ? 'file' : 'chunk';
  const issues: EngineIssue[] = r.failures.map((f) => ({
    level: 'warning',
    phase,
    code: 'embedding_failed',
    message: `${f.items.length} ${what} embeddings left empty after retries: ${f.error}`,
    context: { count: f.items.length, items: f.items.slice(0, 20).map((i) => i.label) },
  }));
  if (r.skipped.length > 0) {
    issues.push({
      level: 'error',
      phase,
      code: 'embedding_unavailable',
      message: `the embedding endpoint kept failing: ${r.skipped.length} further ${what} embeddings were not attempted`,
      context: { count: r.skipped.length },
    });
  }
  return issues;
}
