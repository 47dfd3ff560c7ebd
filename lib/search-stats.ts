/**
 * The per-sync term statistics of lexical search (schema V32, sync_search_stats): written by the sync
 * (activities/store/search-stats.ts), read by the search (graph-api/search/term-stats.ts).
 */

/** Chunks read for the frequencies of one sync. */
export const SAMPLE_CHUNKS = 5_000;
/** A term is listed when at least this many sampled chunks hold it (a term not listed is rare). */
export const MIN_SAMPLE_DF = 3;
