/**
 * Fusion weights chosen by the evaluation (issue 32): for each query, the lexical and the semantic ranking as the
 * service computes them (their own ranks and figures to depth 50: BM25 score, cosine distance; and the names-first
 * hits, which stay on top), then hybrid's order re-computed offline for every fusion of a grid:
 * - `rrf`: weighted reciprocal rank fusion, w / (k + lexical rank) + (1 − w) / (k + semantic rank), k 5, 20, 60;
 * - `score`: a convex combination of the two scores, α · BM25 / best BM25 + (1 − α) · (1 + cos) / (1 + best cos)
 *   (each scaled by its best hit, the lower bound theoretical: BM25 0, cosine −1); a chunk one ranking did not list
 *   gets that ranking's last figure (at most what it would have scored there).
 * Weights are chosen per query shape (what the service can tell from the text: fusion.ts queryShape), and as one
 * fusion for every shape, on a training half of the queries (by a hash of the query text) and reported on the other
 * half, so a choice is not judged on the queries it was fitted to.
 */
import { createHash } from 'node:crypto';
import { fuseWith, queryShape, type FusionWeights, type Ranked } from '../../graph-api/search/fusion.ts';

export interface RankLists {
  q: string;
  kind: string;
  /** graph-api/search/fusion.ts queryShape: what the service can tell of a query without knowing its kind. */
  shape: string;
  /** The lexical ranking (names-first hits excluded): chunk id and BM25 score, best first. */
  lexical: Ranked<unknown>[];
  /** The semantic ranking: chunk id and cosine distance, nearest first. */
  semantic: Ranked<unknown>[];
  /** Names-first hits, in order (they come before any fused hit). */
  names: string[];
  relevant: Set<string>;
}

export const WEIGHTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
export const KS = [5, 20, 60];

/** Every fusion the grid tries. */
export function grid(): FusionWeights[] {
  const out: FusionWeights[] = [];
  for (const k of KS) for (const w of WEIGHTS) out.push({ method: 'rrf', lexical: w, k });
  for (const w of [...WEIGHTS, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95].sort((a, b) => a - b))
    out.push({ method: 'score', lexical: w, k: 0 });
  return out;
}
export const label = (f: FusionWeights) =>
  f.method === 'rrf' ? `rrf w ${f.lexical} k ${f.k}` : `score α ${f.lexical}`;

/** The training half: a hash of the query text, so the split is the same in every run and corpus. */
export const isTraining = (q: string) => createHash('sha256').update(q).digest()[0]! % 2 === 0;

export function fusedMrr(q: RankLists, f: FusionWeights): number {
  const names = new Set(q.names);
  const order = [
    ...q.names,
    ...fuseWith(q.lexical, q.semantic, f)
      .filter((h) => !names.has(h.id))
      .map((h) => h.id),
  ].slice(0, 10);
  const i = order.findIndex((id) => q.relevant.has(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

const mean = (qs: RankLists[], f: FusionWeights) => qs.reduce((s, q) => s + fusedMrr(q, f), 0) / Math.max(1, qs.length);

/**
 * MRR@10 of a ranking alone, as that mode's search orders it: lexical after the names-first hits, semantic without
 * them (semantic mode is the model's ranking alone).
 */
function singleMrr(qs: RankLists[], which: 'lexical' | 'semantic'): number {
  let sum = 0;
  for (const q of qs) {
    const names = new Set(which === 'lexical' ? q.names : []);
    const order = [...names, ...q[which].map((h) => h.id).filter((id) => !names.has(id))].slice(0, 10);
    const i = order.findIndex((id) => q.relevant.has(id));
    sum += i < 0 ? 0 : 1 / (i + 1);
  }
  return sum / Math.max(1, qs.length);
}

/**
 * Prints, per shape: the best fusion on the training half (per method), and how each does on the held-out half and on
 * all queries, beside lexical and semantic alone, per query kind.
 */
export function printGrid(lists: RankLists[], log: (s: string) => void): Map<string, FusionWeights> {
  const shapes = [...new Set(lists.map((q) => q.shape))].sort();
  const kinds = [...new Set(lists.map((q) => q.kind))].sort();
  const chosen = new Map<string, FusionWeights>();
  log(
    `\nfusion grid: weights per shape chosen on the training half (${lists.filter((q) => isTraining(q.q)).length} of ${lists.length} queries)`,
  );
  for (const shape of shapes) {
    const train = lists.filter((q) => q.shape === shape && isTraining(q.q));
    let best: { f: FusionWeights; m: number } | null = null;
    const bestOf = new Map<string, { f: FusionWeights; m: number }>();
    for (const f of grid()) {
      const m = mean(train, f);
      if (!best || m > best.m + 1e-9) best = { f, m };
      const b = bestOf.get(f.method);
      if (!b || m > b.m + 1e-9) bestOf.set(f.method, { f, m });
    }
    chosen.set(shape, best!.f);
    log(
      `  shape ${shape} (training n ${train.length}): best ${label(best!.f)} ${best!.m.toFixed(3)}; ` +
        [...bestOf.values()].map((b) => `${label(b.f)} ${b.m.toFixed(3)}`).join('; ') +
        `; lexical ${singleMrr(train, 'lexical').toFixed(3)}, semantic ${singleMrr(train, 'semantic').toFixed(3)}`,
    );
  }
  const fusedOf = (qs: RankLists[]) =>
    qs.reduce((s, q) => s + fusedMrr(q, chosen.get(q.shape)!), 0) / Math.max(1, qs.length);
  /** Lexical, semantic and the given hybrid per query kind and half, with the hybrid's lead over the better part. */
  const table = (title: string, hybridOf: (qs: RankLists[]) => number) => {
    log(`| kind | half | n | lexical | semantic | ${title} | vs better part |`);
    log(`|---|---|---|---|---|---|---|`);
    for (const kind of ['all', ...kinds]) {
      for (const half of ['held-out', 'training', 'all']) {
        const qs = lists.filter(
          (q) => (kind === 'all' || q.kind === kind) && (half === 'all' || (half === 'training') === isTraining(q.q)),
        );
        const lex = singleMrr(qs, 'lexical');
        const sem = singleMrr(qs, 'semantic');
        const hyb = hybridOf(qs);
        const d = hyb - Math.max(lex, sem);
        log(
          `| ${kind} | ${half} | ${qs.length} | ${lex.toFixed(3)} | ${sem.toFixed(3)} | ${hyb.toFixed(3)} | ${d >= 0 ? '+' : ''}${d.toFixed(3)} |`,
        );
      }
    }
  };
  table('hybrid (chosen per shape)', fusedOf);
  for (const [shape, f] of chosen) log(`chosen for ${shape}: ${JSON.stringify(f)}`);
  // One fusion for every shape, chosen on the training half alone (fewer choices fitted to the same queries).
  const train = lists.filter((q) => isTraining(q.q));
  let one: { f: FusionWeights; m: number } | null = null;
  for (const f of grid()) {
    const m = mean(train, f);
    if (!one || m > one.m + 1e-9) one = { f, m };
  }
  log(`\none fusion for every shape, chosen on the training half: ${label(one!.f)} (training ${one!.m.toFixed(3)})`);
  table('hybrid (one fusion)', (qs) => mean(qs, one!.f));
  return chosen;
}

// `node --import tsx bench/search/fusion-grid.ts FILE…`: the grid over rankings saved by eval.ts --save-lists.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { readFileSync } = await import('node:fs');
  const lists: RankLists[] = process.argv
    .slice(2)
    .flatMap((f) => JSON.parse(readFileSync(f, 'utf8')) as Array<RankLists & { relevant: string[] }>)
    .map((l) => ({ ...l, shape: queryShape(l.q), relevant: new Set(l.relevant) }));
  printGrid(lists, (x) => console.log(x));
}
