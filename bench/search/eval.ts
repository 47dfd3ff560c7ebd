/**
 * Search evaluation against the running stack: ≥200 queries a developer would type (bench/search/queries/*.tsv:
 * descriptions written without the function's name, and partial identifiers), each with the symbol it should find,
 * over real code copied at run time into temporary git repositories (bench/search/corpora.ts). Prints MRR@10 and
 * recall@10 of the specification's file search and of chunk search in each mode, per corpus and query kind, and the
 * server-side latency of chunk search (meta.query_ms: database time, the embedding call excluded) and symbol search.
 *
 *   source the stack's ports; node --import tsx bench/search/eval.ts [--resync] [--rounds N]
 *
 * The embeddings are whatever the stack's EMBEDDING_URL serves: the model-host stand-in (lexical, see docs/graph.md)
 * unless the stack was started with a real model (EMBEDDING_URL=… bash scripts/stack.sh up, then --resync).
 * Targets are named by file path and symbol: a chunk is relevant when it is in that file and defines the symbol
 * (its symbols list it, or its lines hold the definition); a file hit when it is that file.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { corpora, gitRepoOf } from './corpora.ts';
import { GRAPH_URL, call, ensureSynced } from './stack.ts';

interface Query {
  corpus: string;
  kind: 'nl' | 'ident';
  q: string;
  file: string;
  symbol: string;
  defLines: number[];
}

const K = 10;
const MODES = ['file', 'lexical', 'semantic', 'hybrid'] as const;
type Mode = (typeof MODES)[number];
const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1] ?? 0) || 1;
const log = (s: string) => console.error(s);

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Lines (1-based) where `name` is defined, by the file's language. */
function definitionLines(text: string, file: string, name: string): number[] {
  const n = escapeRe(name);
  const re = file.endsWith('.go')
    ? new RegExp(`^(func (\\([^)]*\\)\\s*)?${n}\\b|type ${n}\\b)`)
    : file.endsWith('.py')
      ? new RegExp(`^\\s*((async\\s+)?def|class)\\s+${n}\\b`)
      : new RegExp(`(function\\*?|class|interface|type|const|let)\\s+${n}\\b|^\\s+(async\\s+)?${n}\\s*[(<]`);
  const out: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (re.test(line)) out.push(i + 1);
  });
  return out;
}

function loadQueries(): Query[] {
  const dir = new URL('./queries/', import.meta.url).pathname;
  const repos = new Map(corpora().map((c) => [c.name, gitRepoOf(c)]));
  const out: Query[] = [];
  const invalid: string[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.tsv'))) {
    const corpus = f.replace(/\.tsv$/, '');
    const repo = repos.get(corpus);
    if (!repo) throw new Error(`no corpus ${corpus} for ${f}`);
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (line.trim() === '' || line.startsWith('#')) continue;
      const [kind, q, file, symbol] = line.split('\t');
      if ((kind !== 'nl' && kind !== 'ident') || !q || !file || !symbol) throw new Error(`${f}: bad line ${line}`);
      let text: string;
      try {
        text = readFileSync(join(repo, file), 'utf8');
      } catch {
        invalid.push(`${f}: ${file} does not exist`);
        continue;
      }
      const defLines = definitionLines(text, file, symbol);
      if (defLines.length === 0) invalid.push(`${f}: ${symbol} is not defined in ${file}`);
      else out.push({ corpus, kind, q, file, symbol, defLines });
    }
  }
  if (invalid.length > 0) throw new Error(`invalid queries:\n${invalid.join('\n')}`);
  return out;
}

interface ChunkHit {
  file_path: string;
  start_line: number;
  end_line: number;
  symbols: string[];
}
interface ChunkPage {
  items: ChunkHit[];
  meta: { query_ms: number; embed_ms: number };
}

const qs = (o: Record<string, string | number>) =>
  Object.entries(o)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

/** 1-based rank of the first relevant hit in the top K, or 0. */
async function rankOf(mode: Mode, q: Query, sourceId: string, ms: Record<string, number[]>): Promise<number> {
  if (mode === 'file') {
    const res = await call<{ results: Array<{ file_path: string; source_id: string }> }>(
      GRAPH_URL,
      `/api/graph/search?${qs({ q: q.q, limit: 100 })}`,
    );
    const mine = res.results.filter((r) => r.source_id === sourceId).slice(0, K);
    return mine.findIndex((r) => r.file_path === q.file) + 1;
  }
  const res = await call<ChunkPage>(
    GRAPH_URL,
    `/api/graph/search/chunks?${qs({ q: q.q, mode, source_id: sourceId, limit: K })}`,
  );
  (ms[mode] ??= []).push(res.meta.query_ms);
  return (
    res.items.findIndex(
      (h) =>
        h.file_path === q.file &&
        (h.symbols.includes(q.symbol) || q.defLines.some((l) => l >= h.start_line && l <= h.end_line)),
    ) + 1
  );
}

async function symbolRank(q: Query, sourceId: string, ms: number[]): Promise<number> {
  const res = await call<{ items: Array<{ name: string; file_path: string }>; meta: { query_ms: number } }>(
    GRAPH_URL,
    `/api/graph/search/symbols?${qs({ q: q.q.replace(/\s+/g, ''), source_id: sourceId, limit: K })}`,
  );
  ms.push(res.meta.query_ms);
  return res.items.findIndex((h) => h.name === q.symbol && h.file_path === q.file) + 1;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const f3 = (x: number) => x.toFixed(3);

async function main() {
  const queries = loadQueries();
  const sources = new Map<string, string>();
  for (const c of corpora()) sources.set(c.name, (await ensureSynced(c, log)).sourceId);
  log(
    `${queries.length} queries; load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  const ranks: Record<Mode | 'symbol', Map<Query, number>> = {
    file: new Map(),
    lexical: new Map(),
    semantic: new Map(),
    hybrid: new Map(),
    symbol: new Map(),
  };
  const ms: Record<string, number[]> = {};
  const symbolMs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const q of queries) {
      const src = sources.get(q.corpus)!;
      for (const mode of MODES) ranks[mode].set(q, await rankOf(mode, q, src, ms));
      if (q.kind === 'ident') ranks.symbol.set(q, await symbolRank(q, src, symbolMs));
    }
  }
  const metric = (m: Map<Query, number>, pick: (q: Query) => boolean) => {
    const rs = [...m].filter(([q]) => pick(q)).map(([, r]) => r);
    const mrr = rs.reduce((s, r) => s + (r > 0 ? 1 / r : 0), 0) / rs.length;
    const recall = rs.filter((r) => r > 0).length / rs.length;
    return { n: rs.length, mrr, recall };
  };
  const groups: Array<[string, (q: Query) => boolean]> = [
    ['all', () => true],
    ['descriptions (nl)', (q) => q.kind === 'nl'],
    ['partial identifiers', (q) => q.kind === 'ident'],
    ...[...sources.keys()].map((c): [string, (q: Query) => boolean] => [c, (q) => q.corpus === c]),
  ];
  console.log(`| queries | n | ${MODES.map((m) => `${m} MRR@10 / R@10`).join(' | ')} |`);
  console.log(`|---|---|${MODES.map(() => '---').join('|')}|`);
  for (const [name, pick] of groups) {
    const cells = MODES.map((m) => {
      const r = metric(ranks[m], pick);
      return `${f3(r.mrr)} / ${f3(r.recall)}`;
    });
    console.log(`| ${name} | ${metric(ranks.file, pick).n} | ${cells.join(' | ')} |`);
  }
  const sym = metric(ranks.symbol, () => true);
  console.log(
    `\nsymbol search on the partial identifiers (spaces removed): MRR@10 ${f3(sym.mrr)}, R@10 ${f3(sym.recall)}`,
  );
  console.log(
    `\nserver-side latency, ms (meta.query_ms; the embedding call excluded), all corpora, ${rounds} round(s):`,
  );
  for (const [mode, xs] of Object.entries(ms)) {
    console.log(`  chunk ${mode}: p50 ${pct(xs, 50)}  p99 ${pct(xs, 99)}  max ${Math.max(...xs)}  (n ${xs.length})`);
  }
  console.log(`  symbols: p50 ${pct(symbolMs, 50)}  p99 ${pct(symbolMs, 99)}  (n ${symbolMs.length})`);
  console.log(
    `load average at the end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
}

await main();
