/**
 * Fusion weights chosen by the evaluation (issue 32): for each query, the lexical and the semantic ranking as the
 * service computes them (their own ranks, `scores.lexical.rank` / `scores.semantic.rank`, to depth 50, and the
 * names-first hits, which stay on top), then hybrid's order re-computed offline for every weight and RRF constant of a
 * grid: score = w / (k + lexical rank) + (1 − w) / (k + semantic rank). Prints MRR@10 per query kind for each point,
 * the best point per kind and overall.
 */
export interface RankLists {
  kind: string;
  /** graph-api/search/fusion.ts queryShape: what the service can tell of a query without knowing its kind. */
  shape: string;
  /** Chunk id → 1-based rank in the lexical ranking (names-first hits excluded). */
  lexical: Map<string, number>;
  semantic: Map<string, number>;
  /** Names-first hits, in order (they come before any fused hit). */
  names: string[];
  relevant: Set<string>;
}

export const WEIGHTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
export const KS = [5, 20, 60];

export function fusedMrr(q: RankLists, w: number, k: number): number {
  const score = new Map<string, number>();
  for (const [id, r] of q.lexical) score.set(id, (score.get(id) ?? 0) + w / (k + r));
  for (const [id, r] of q.semantic) score.set(id, (score.get(id) ?? 0) + (1 - w) / (k + r));
  const names = new Set(q.names);
  const order = [
    ...q.names,
    ...[...score]
      .filter(([id]) => !names.has(id))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([id]) => id),
  ].slice(0, 10);
  const i = order.findIndex((id) => q.relevant.has(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

export function printGrid(lists: RankLists[], log: (s: string) => void): void {
  const kinds = [
    'all',
    ...new Set(lists.map((q) => q.kind)),
    ...new Set(lists.map((q) => `shape ${q.shape}`)),
    ...new Set(lists.map((q) => `${q.kind} ${q.shape}`)),
  ];
  const pick = (kind: string) =>
    lists.filter(
      (q) => kind === 'all' || q.kind === kind || `shape ${q.shape}` === kind || `${q.kind} ${q.shape}` === kind,
    );
  const mean = (qs: RankLists[], w: number, k: number) => qs.reduce((s, q) => s + fusedMrr(q, w, k), 0) / qs.length;
  log(`\nfusion grid (MRR@10 of hybrid re-computed offline; w = lexical weight, k = RRF constant):`);
  log(`| k | w | ${kinds.join(' | ')} |`);
  log(`|---|---|${kinds.map(() => '---').join('|')}|`);
  const best = new Map<string, { w: number; k: number; mrr: number }>();
  for (const k of KS) {
    for (const w of WEIGHTS) {
      const cells = kinds.map((kind) => {
        const m = mean(pick(kind), w, k);
        const b = best.get(kind);
        if (!b || m > b.mrr + 1e-9) best.set(kind, { w, k, mrr: m });
        return m.toFixed(3);
      });
      log(`| ${k} | ${w} | ${cells.join(' | ')} |`);
    }
  }
  for (const [kind, b] of best) log(`best for ${kind}: w ${b.w}, k ${b.k}: MRR@10 ${b.mrr.toFixed(3)}`);
}
