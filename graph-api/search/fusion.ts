/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): a hit's fused score is the sum over the rankings it
 * appears in of 1 / (K + rank), rank 1-based. It needs no calibration between BM25-like scores and cosine distances,
 * and a hit that both rankings place high beats one that only one places first. K = 60 as in the paper. In a
 * single-mode search the same formula over one ranking keeps scores comparable across modes.
 */
export const RRF_K = 60;

export interface Ranked<T> {
  id: string;
  /** The ranking's own figure (ts_rank score, or cosine distance). */
  value: number;
  extra?: T;
}

export interface FusedHit {
  id: string;
  score: number;
  lexical: { rank: number; score: number } | null;
  semantic: { rank: number; distance: number } | null;
}

/**
 * The shape of a query, as fusion weighs it: `short` (one to three words: a name, part of one, two or three words of
 * one) or `long` (four words or more: a description, a message).
 */
export type QueryShape = 'short' | 'long';
const WORD = /[A-Za-z0-9_$\u0080-\uffff]+/g;
export function queryShape(q: string): QueryShape {
  return (q.match(WORD)?.length ?? 0) <= 3 ? 'short' : 'long';
}

/**
 * Weighted reciprocal rank fusion: score = 2w / (k + lexical rank) + 2(1 − w) / (k + semantic rank). w = 0.5 and
 * k = RRF_K is the paper's RRF.
 */
export interface FusionWeights {
  lexical: number;
  k: number;
}
export const RRF: FusionWeights = { lexical: 0.5, k: RRF_K };

/**
 * Hybrid search's weights per query shape, chosen by bench/search/eval.ts --fusion-grid (docs/benchmarks.md, "Search
 * quality"): the best MRR@10 of each shape over w 0…1 and k 5, 20, 60, summed over the two evaluations of 2026-11-28
 * (the stand-in's embeddings on 317 queries, MiniLM on 143). Short queries are names: lexical ranking with meaning as
 * a tie-breaker; long ones lean on meaning more.
 */
export const FUSION: Record<QueryShape, FusionWeights> = {
  short: { lexical: 0.9, k: 5 },
  long: { lexical: 0.7, k: 5 },
};

export function fuse(
  lexical: readonly Ranked<unknown>[],
  semantic: readonly Ranked<unknown>[],
  weights: FusionWeights = RRF,
): FusedHit[] {
  const wl = 2 * weights.lexical;
  const ws = 2 * (1 - weights.lexical);
  const hits = new Map<string, FusedHit>();
  const hit = (id: string) => {
    let h = hits.get(id);
    if (!h) hits.set(id, (h = { id, score: 0, lexical: null, semantic: null }));
    return h;
  };
  lexical.forEach((r, i) => {
    const h = hit(r.id);
    h.lexical = { rank: i + 1, score: r.value };
    h.score += wl / (weights.k + i + 1);
  });
  semantic.forEach((r, i) => {
    const h = hit(r.id);
    h.semantic = { rank: i + 1, distance: r.value };
    h.score += ws / (weights.k + i + 1);
  });
  return [...hits.values()].sort(compareFused);
}

/** Fused order: score descending, then id ascending (a total order, so pages are stable). */
export function compareFused(a: { score: number; id: string }, b: { score: number; id: string }): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
