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
 * The shape of a query, as fusion weighs it, told from its text alone:
 * - `message`: an error message or log line pasted from output or code: it has a message's punctuation (a colon,
 *   quotes, brackets, `=`, `%`, a comma, `!`, `?`), or it is a sentence of four words or more that holds an identifier
 *   (`harmonic_mean requires at least one data point`) or starts with a capital (`Invalid application MIME subtype`);
 * - `short`: one token (a name, a path) or up to three words (part of a name, a few words of one);
 * - `long`: four plain words or more (a description).
 */
export type QueryShape = 'short' | 'long' | 'message';
const WORD = /[A-Za-z0-9_$\u0080-\uffff]+/g;
/** Punctuation of messages, not of names (`.`, `/`, `-`, `_`, `*`, `#` and `'` inside a word are left out). */
const MESSAGE_MARK = /[:"`()[\]{}=%,!?<>;|]|(^|\s)'|'(\s|$)/;
/** A word written as an identifier: an inner capital (`parseInt`, `HMAC_Init`), an underscore, a dot between words. */
const IDENTIFIER = /^[A-Za-z0-9]*[a-z0-9][A-Z]|_|^\w+\.\w/;
export function queryShape(q: string): QueryShape {
  const words = q.match(WORD) ?? [];
  const tokens = q.trim().split(/\s+/);
  if (tokens.length === 1) return 'short';
  if (words.length >= 2 && MESSAGE_MARK.test(q)) return 'message';
  if (words.length <= 3) return 'short';
  if (tokens.some((t) => IDENTIFIER.test(t)) || /^[A-Z][a-z]/.test(q.trim())) return 'message';
  return 'long';
}

/**
 * How hybrid search fuses its two rankings:
 * - `rrf`: weighted reciprocal rank fusion, score = 2w / (k + lexical rank) + 2(1 − w) / (k + semantic rank); w = 0.5
 *   and k = RRF_K is the paper's RRF;
 * - `score`: a convex combination of the two scores (Bruch, Gai and Ingber, "An Analysis of Fusion Functions for
 *   Hybrid Retrieval", 2023: it beats RRF once its one weight is fitted, from few queries), each scaled by the best
 *   hit of its ranking with its theoretical lower bound (BM25 0, cosine similarity −1):
 *   score = w · bm25 / best bm25 + (1 − w) · (1 + cos) / (1 + best cos). A chunk only one ranking listed gets the other
 *   ranking's last figure (at most what it would have scored there). Unlike ranks, scores keep how far apart hits are:
 *   a chunk holding every word of a pasted message stays above chunks holding some of them.
 */
export interface FusionWeights {
  method: 'rrf' | 'score';
  /** The lexical ranking's weight w (0…1). */
  lexical: number;
  /** RRF's constant (rrf only). */
  k: number;
}
export const RRF: FusionWeights = { method: 'rrf', lexical: 0.5, k: RRF_K };

/**
 * Hybrid search's fusion, chosen by bench/search/eval.ts --fusion-grid with the real model (all-MiniLM-L6-v2 with the
 * chunks' key vectors, 317 queries over the Go standard library, CPython and the Temporal TS SDK, 2026-11-28 06:38):
 * the one fusion with the best MRR@10 on the training half of the queries, checked on the held-out half
 * (docs/benchmarks.md, "Search quality"). A convex combination of the scores, the model weighing three to one: its
 * key vectors meet split names and pasted messages, and BM25's margin keeps the chunk holding the query's rare words
 * ahead. One fusion for every shape: a fusion chosen per shape on the training half did better there (0.689) but
 * worse on the held-out half (descriptions +0.027, messages +0.027 over the better part, against +0.049 and +0.085):
 * three choices fitted to ~35-86 queries each followed the half's noise.
 */
export const FUSION: Record<QueryShape, FusionWeights> = {
  short: { method: 'score', lexical: 0.25, k: 0 },
  long: { method: 'score', lexical: 0.25, k: 0 },
  message: { method: 'score', lexical: 0.25, k: 0 },
};

/** Reciprocal rank fusion with the given weights (plain RRF by default): the single modes' scores. */
export function fuse(
  lexical: readonly Ranked<unknown>[],
  semantic: readonly Ranked<unknown>[],
  weights: FusionWeights = RRF,
): FusedHit[] {
  return fuseWith(lexical, semantic, weights);
}

/** Fuses the two rankings (lexical: BM25 scores, best first; semantic: cosine distances, nearest first). */
export function fuseWith(
  lexical: readonly Ranked<unknown>[],
  semantic: readonly Ranked<unknown>[],
  f: FusionWeights,
): FusedHit[] {
  const hits = new Map<string, FusedHit>();
  const hit = (id: string) => {
    let h = hits.get(id);
    if (!h) hits.set(id, (h = { id, score: 0, lexical: null, semantic: null }));
    return h;
  };
  lexical.forEach((r, i) => (hit(r.id).lexical = { rank: i + 1, score: r.value }));
  semantic.forEach((r, i) => (hit(r.id).semantic = { rank: i + 1, distance: r.value }));
  if (f.method === 'rrf') {
    const wl = 2 * f.lexical;
    const ws = 2 * (1 - f.lexical);
    for (const h of hits.values()) {
      h.score = (h.lexical ? wl / (f.k + h.lexical.rank) : 0) + (h.semantic ? ws / (f.k + h.semantic.rank) : 0);
    }
  } else {
    const best = lexical[0]?.value ?? 0;
    const last = lexical.at(-1)?.value ?? 0;
    const lex = (v: number) => (best > 0 ? Math.max(0, v) / best : 0);
    const sim = (d: number) => 1 + (1 - d);
    const bestSim = semantic[0] ? sim(semantic[0].value) : 0;
    const lastSim = semantic.at(-1) ? sim(semantic.at(-1)!.value) : 0;
    const sem = (s: number) => (bestSim > 0 ? s / bestSim : 0);
    for (const h of hits.values()) {
      h.score =
        f.lexical * lex(h.lexical ? h.lexical.score : last) +
        (1 - f.lexical) * sem(h.semantic ? sim(h.semantic.distance) : lastSim);
    }
  }
  return [...hits.values()].sort(compareFused);
}

/** Fused order: score descending, then id ascending (a total order, so pages are stable). */
export function compareFused(a: { score: number; id: string }, b: { score: number; id: string }): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
