/**
 * Batched writes with a per-row fallback: rows go to the database 500 at a time; when a batch fails, its rows are
 * retried one by one so a single bad row becomes an issue and the rest are written.
 */
import type { EngineIssue } from '../../engine/types.ts';

/** Rows per statement for every graph and row write (spec limit: graph write batch of 500). */
export const WRITE_BATCH = 500;

export interface BatchOutcome<R> {
  results: R[];
  issues: EngineIssue[];
}

export async function writeInBatches<T, R>(
  rows: readonly T[],
  write: (batch: readonly T[]) => Promise<R[]>,
  describeFailure: (row: T, err: unknown) => EngineIssue,
  batchSize = WRITE_BATCH,
): Promise<BatchOutcome<R>> {
  const results: R[] = [];
  const issues: EngineIssue[] = [];
  for (let i = 0; i < rows.length; i += batchSize) {
    const batch = rows.slice(i, i + batchSize);
    try {
      results.push(...(await write(batch)));
    } catch {
      for (const row of batch) {
        try {
          results.push(...(await write([row])));
        } catch (err) {
          issues.push(describeFailure(row, err));
        }
      }
    }
  }
  return { results, issues };
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
