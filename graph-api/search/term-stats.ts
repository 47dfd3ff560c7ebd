/**
 * How common each search term is, from PostgreSQL's own statistics of content_chunks.search_terms (ANALYZE keeps
 * the ~1,000 most common lexemes with their fraction of rows; any other lexeme is rarer than the least of them).
 * Lexical search uses it to find candidates through the rare terms of a query only: a term in a third of all chunks
 * ("file", "err", "return") would make every query rank tens of thousands of rows. Cached per process for
 * TERM_STATS_TTL_MS; autovacuum refreshes the statistics after large syncs.
 */
import type { ReadTx } from '../db/read.ts';

export const TERM_STATS_TTL_MS = 10 * 60_000;

export interface TermStats {
  /** Fraction of chunks containing the lexeme; undefined when it is not among the most common. */
  frequency(lexeme: string): number | undefined;
}

let cached: { at: number; stats: TermStats } | undefined;

export async function termStats(tx: ReadTx, now = Date.now()): Promise<TermStats> {
  if (cached && now - cached.at < TERM_STATS_TTL_MS) return cached.stats;
  const res = await tx.query<{ elems: string[] | null; freqs: number[] | null }>(
    `SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs
       FROM pg_stats WHERE schemaname = 'public' AND tablename = 'content_chunks' AND attname = 'search_terms'`,
  );
  const map = new Map<string, number>();
  for (const row of res.rows) {
    (row.elems ?? []).forEach((e, i) => {
      const f = row.freqs?.[i];
      if (f !== undefined) map.set(e, Math.max(f, map.get(e) ?? 0));
    });
  }
  const stats: TermStats = { frequency: (l) => map.get(l) };
  cached = { at: now, stats };
  return stats;
}
