/**
 * The searched syncs' term statistics (schema V32, sync_search_stats, written when each sync completes:
 * activities/store/search-stats.ts): how many chunks a sync has, their mean length, and in how many chunks each of its
 * common terms occurs. Lexical search selects candidates through the query's rare terms only (a term in a third of all
 * chunks, "file", "err", "return", would make every query rank tens of thousands of rows) and ranks them by BM25 with
 * these figures. A term a sync does not list is rare there (taken to be in half as many chunks as a listed one).
 *
 * A completed sync's row does not change, so rows are cached per process (at most CACHED_SYNCS syncs, oldest out).
 * With several syncs searched at once, the figures are their means (the syncs of one source share most chunks).
 */
import type { ReadTx } from '../db/read.ts';
import { MIN_SAMPLE_DF } from '../../lib/search-stats.ts';

export const CACHED_SYNCS = 64;

interface SyncStats {
  chunks: number;
  sampled: number;
  avgTokens: number;
  df: Map<string, number>;
}

export interface TermStats {
  /** Chunks per searched sync (mean over the syncs with statistics); 0 when none has them. */
  chunks: number;
  /** Mean chunk length in tokens (content_chunks.token_count). */
  avgTokens: number;
  /**
   * The chunk count a term no searched sync lists is taken to have: half the listing threshold, scaled from the sample
   * to the sync (activities/store/search-stats.ts MIN_SAMPLE_DF).
   */
  rareDf: number;
  /** Estimated number of chunks holding the lexeme; undefined when it is rare (listed by no searched sync). */
  df(lexeme: string): number | undefined;
  /** df as a fraction of the chunks. */
  frequency(lexeme: string): number | undefined;
}

const cache = new Map<string, SyncStats>();

async function load(tx: ReadTx, syncIds: string[]): Promise<Map<string, SyncStats>> {
  const out = new Map<string, SyncStats>();
  const missing: string[] = [];
  for (const id of syncIds) {
    const s = cache.get(id);
    if (s) out.set(id, s);
    else missing.push(id);
  }
  if (missing.length === 0) return out;
  const res = await tx.query<{
    sync_id: string;
    chunks: number;
    sampled: number;
    avg_tokens: number;
    terms: string[];
    dfs: number[];
  }>(`SELECT sync_id, chunks, sampled, avg_tokens, terms, dfs FROM sync_search_stats WHERE sync_id = ANY($1::uuid[])`, [
    missing,
  ]);
  for (const r of res.rows) {
    const df = new Map<string, number>();
    r.terms.forEach((t, i) => df.set(t, r.dfs[i]!));
    const s = { chunks: r.chunks, sampled: r.sampled, avgTokens: r.avg_tokens, df };
    if (cache.size >= CACHED_SYNCS) cache.delete(cache.keys().next().value!);
    cache.set(r.sync_id, s);
    out.set(r.sync_id, s);
  }
  return out;
}

export async function termStats(tx: ReadTx, syncIds: string[]): Promise<TermStats> {
  const all = [...(await load(tx, syncIds)).values()];
  const n = all.length;
  const chunks = n === 0 ? 0 : all.reduce((a, s) => a + s.chunks, 0) / n;
  const avgTokens = n === 0 ? 0 : all.reduce((a, s) => a + s.avgTokens, 0) / n;
  const rareDf =
    n === 0 ? 1 : all.reduce((a, s) => a + ((MIN_SAMPLE_DF / 2) * s.chunks) / Math.max(1, s.sampled), 0) / n;
  const df = (lexeme: string): number | undefined => {
    let sum = 0;
    let listed = false;
    for (const s of all) {
      const d = s.df.get(lexeme);
      if (d !== undefined) {
        sum += d;
        listed = true;
      }
    }
    return listed ? sum / n : undefined;
  };
  return {
    chunks,
    avgTokens,
    rareDf,
    df,
    frequency: (lexeme) => {
      const d = df(lexeme);
      return d === undefined || chunks === 0 ? undefined : d / chunks;
    },
  };
}
