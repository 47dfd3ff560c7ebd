/**
 * The sync's search statistics (schema V32, sync_search_stats): chunk count, mean chunk length and the document
 * frequencies of its common terms, which lexical chunk search ranks with (BM25, graph-api/search/chunks.ts).
 * Written by finalizeSync in its transaction, so every completed sync has them.
 *
 * Cheap by design: the frequencies come from a sample of about SAMPLE_CHUNKS chunks (the Go standard library's
 * 54,000 chunks: a tenth of its files), and a re-sync that changed, added or removed few files since the row it
 * would take over was computed (at most REUSE_CHANGED_FRACTION of its files, cumulated over re-syncs) copies that row
 * with its new chunk count instead: an unchanged re-sync costs one row copy.
 */
import type { Queryable } from '../../lib/db.ts';
import type { IncrementalStats } from '../../workflows/sync-types.ts';
import { MIN_SAMPLE_DF, SAMPLE_CHUNKS } from '../../lib/search-stats.ts';

/** Files changed since the row was computed, as a fraction of the sync's files, up to which a re-sync reuses it. */
export const REUSE_CHANGED_FRACTION = 0.01;

export async function writeSearchStats(
  db: Queryable,
  syncId: string,
  incremental: IncrementalStats | undefined,
): Promise<'computed' | 'carried'> {
  const prev = incremental?.previous_sync_id ?? null;
  if (incremental && prev !== null) {
    const changed = incremental.changed + incremental.added + incremental.removed + incremental.unchanged_reanalysed;
    const files = incremental.reused + incremental.unchanged_reanalysed + incremental.changed + incremental.added;
    // Carried over when few files changed since the previous row was computed: the chunk count is the sync's own.
    const carried = await db.query(
      `INSERT INTO sync_search_stats AS t (sync_id, chunks, avg_tokens, sampled, terms, dfs, computed_from,
                                           changed_files)
       SELECT $1, n.chunks, p.avg_tokens, p.sampled, p.terms, p.dfs, p.computed_from, p.changed_files + $3
         FROM sync_search_stats p,
              LATERAL (SELECT count(*)::int AS chunks
                         FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id
                        WHERE s.sync_id = $1) n
        WHERE p.sync_id = $2 AND p.changed_files + $3 <= $4
       ON CONFLICT (sync_id) DO UPDATE SET chunks = EXCLUDED.chunks, avg_tokens = EXCLUDED.avg_tokens,
         sampled = EXCLUDED.sampled, terms = EXCLUDED.terms, dfs = EXCLUDED.dfs,
         computed_from = EXCLUDED.computed_from, changed_files = EXCLUDED.changed_files, computed_at = now()`,
      [syncId, prev, changed, Math.floor(files * REUSE_CHANGED_FRACTION)],
    );
    if ((carried.rowCount ?? 0) > 0) return 'carried';
  }
  await db.query(`SELECT compute_sync_search_stats($1, $2, $3)`, [syncId, SAMPLE_CHUNKS, MIN_SAMPLE_DF]);
  return 'computed';
}
