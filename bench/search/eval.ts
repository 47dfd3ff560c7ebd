/**
 * Search evaluation against the running stack, over real code copied at run time into temporary git repositories
 * (bench/search/corpora.ts). Three kinds of query a developer types, each with what it should find:
 * - `nl`: descriptions written without the function's name (bench/search/queries/*.tsv);
 * - `ident`: partial identifiers (same files);
 * - `error`: error messages and log lines copied from the code (string literals of errors.New / fmt.Errorf / log
 *   calls, raise X("…"), throw new XError("…")), drawn deterministically from each corpus; relevant: the chunk
 *   holding that line.
 * Prints MRR@10 and recall@10 of file search (names first) and of chunk search in each mode, per kind and corpus,
 * and, for name queries (a file's name or path end; a definition's name, qualified by its folder or module), the
 * share found at rank 1 by file search, chunk search (hybrid) and symbol search.
 *
 *   source the stack's ports; node --import tsx bench/search/eval.ts [--resync] [--rounds N] [--small --tag minilm]
 *     [--fusion-grid [--save-lists FILE]]   (hybrid's fusion re-computed offline over a grid: bench/search/fusion-grid.ts)
 *     [--only go-std,cpython-lib,temporal-ts]   (some corpora only)   [--names-only]   (the name queries only)
 *
 * `--small --tag T` evaluates the small corpora (corpora.ts corporaFor) under source names ending in `-T`: run it
 * with the stack's model host serving a real model (MODEL_HOST_EMBEDDING_MODEL=minilm), so those sources' chunks
 * and the queries are embedded by it.
 *
 * The embeddings are whatever the stack's EMBEDDING_URL serves: the model-host stand-in (lexical, see docs/graph.md)
 * unless the stack was started with a real model (EMBEDDING_URL=… bash scripts/stack.sh up, then --resync).
 * Targets are named by file path and symbol: a chunk is relevant when it is in that file and defines the symbol
 * (its symbols list it, or its lines hold the definition); a file hit when it is that file.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { corporaFor, gitRepoOf, type Corpus } from './corpora.ts';
import { GRAPH_URL, call, ensureSynced } from './stack.ts';
import { printGrid, type RankLists } from './fusion-grid.ts';
import { queryShape, type Ranked } from '../../graph-api/search/fusion.ts';

type Kind = 'nl' | 'ident' | 'error';
interface Query {
  corpus: string;
  kind: Kind;
  q: string;
  file: string;
  /** The symbol defined (nl, ident), or '' (error: the line is what counts). */
  symbol: string;
  defLines: number[];
}
/** A name query: a file's name (file) or a definition's name (definition), with where it should lead. */
interface NameQuery {
  corpus: string;
  kind: 'file' | 'definition';
  q: string;
  file: string;
  symbol: string;
  line: number;
  /**
   * Every definition the query names exactly (definitions): the same name (and Go receiver type) in the same Go
   * package (folder) or the same module file. A Go package defines `syscall.Chmod` once per platform file
   * (zsyscall_linux_amd64.go, zsyscall_darwin_arm64.go, …): each is that name's definition, and the sampled one is
   * no truer than the others.
   */
  sites: Array<{ file: string; line: number }>;
}

const K = 10;
const MODES = ['file', 'lexical', 'semantic', 'hybrid'] as const;
type Mode = (typeof MODES)[number];
const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1] ?? 0) || 1;
const small = args.includes('--small');
const tag = args.includes('--tag') ? args[args.indexOf('--tag') + 1]! : 'standin';
/** `--only a,b`: these corpora only (by their name without the tag). */
const only = args.includes('--only') ? args[args.indexOf('--only') + 1]!.split(',') : null;
const CORPORA = corporaFor({ small, tag }).filter((c) => only === null || only.includes(c.name.replace(`-${tag}`, '')));
/** Generated queries per corpus and kind. */
const PER_CORPUS = { error: 30, file: 20, definition: 20 };
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
  const out: Query[] = [];
  const invalid: string[] = [];
  for (const c of CORPORA) {
    const f = `${c.queries}.tsv`;
    const corpus = c.name;
    const repo = gitRepoOf(c);
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

/** Every file of a corpus repository (relative paths), sorted. */
function filesOf(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(r);
      else if (e.isFile()) out.push(r);
    }
  };
  walk('');
  return out.sort();
}

const CODE = /\.(go|py|ts)$/;
const stable = (s: string) => createHash('sha256').update(s).digest('hex');
/** A deterministic sample of n items (by hash of their key), in hash order. */
const sample = <T>(xs: T[], key: (x: T) => string, n: number) =>
  xs
    .map((x) => [stable(key(x)), x] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .slice(0, n)
    .map(([, x]) => x);

/** Error messages and log lines: string literals passed to error constructors and loggers. */
const MESSAGE =
  /(?:errors\.New|fmt\.Errorf|log\.(?:Printf|Fatalf|Panicf|Print|Fatal)|panic|raise \w+|throw new \w*Error|logger\.\w+|warnings\.warn)\(\s*(?:f?"([^"\\]{12,120})"|'([^'\\]{12,120})'|`([^`$\\]{12,120})`)/;

function generated(c: Corpus): { errors: Query[]; names: NameQuery[] } {
  const root = gitRepoOf(c);
  const files = filesOf(root).filter((f) => CODE.test(f) && !/(^|\/)(testdata|vendor)\//.test(f));
  const texts = new Map<string, string>();
  const text = (f: string) => {
    let t = texts.get(f);
    if (t === undefined)
      texts.set(f, (t = statSync(join(root, f)).size < 400_000 ? readFileSync(join(root, f), 'utf8') : ''));
    return t;
  };
  const candidates: Query[] = [];
  for (const f of sample(files, (x) => x, 400)) {
    text(f)
      .split('\n')
      .forEach((line, i) => {
        const m = MESSAGE.exec(line);
        const msg = m?.[1] ?? m?.[2] ?? m?.[3];
        // A message of at least three words, with its format verbs dropped (they are not in what a log shows).
        const clean = msg
          ?.replace(/%[-+#0-9.]*[a-zA-Z]|\{[^}]*\}/g, ' ')
          .replace(/\s+/g, ' ')
          .trim();
        if (clean && clean.split(' ').length >= 3) {
          candidates.push({ corpus: c.name, kind: 'error', q: clean, file: f, symbol: '', defLines: [i + 1] });
        }
      });
  }
  // One message per text (the same message in several places has no single answer).
  const counts = new Map<string, number>();
  for (const q of candidates) counts.set(q.q, (counts.get(q.q) ?? 0) + 1);
  const errors = sample(
    candidates.filter((q) => counts.get(q.q) === 1),
    (q) => q.q,
    PER_CORPUS.error,
  );
  // File names: the base name when it is unique in the corpus, else the shortest unique end of the path.
  const names: NameQuery[] = [];
  const source = files.filter((f) => !/_test\.go$|(^|\/)test_[^/]*\.py$|\.test\.ts$/.test(f));
  for (const f of sample(source, (x) => 'file:' + x, PER_CORPUS.file)) {
    const parts = f.split('/');
    let q = f;
    for (let k = 1; k <= parts.length; k++) {
      const end = parts.slice(-k).join('/');
      if (files.filter((g) => g === end || g.endsWith('/' + end)).length === 1) {
        q = end;
        break;
      }
    }
    names.push({ corpus: c.name, kind: 'file', q, file: f, symbol: '', line: 1, sites: [] });
  }
  // Definitions: a top-level function or class, named as a developer writes it (qualified when not unique).
  const defs: Array<{ file: string; name: string; line: number; receiver: string | undefined }> = [];
  const DEF =
    /^(?:func (?:\(\w+ \*?(\w+)(?:\[[^\]]*\])?\)\s*)?([A-Z]\w+)\(|def ([a-z]\w{3,})\(|class ([A-Z]\w+)|export (?:async )?(?:function|class) (\w+))/;
  for (const f of sample(source, (x) => 'def:' + x, 200)) {
    text(f)
      .split('\n')
      .forEach((line, i) => {
        const m = DEF.exec(line);
        const name = m?.[2] ?? m?.[3] ?? m?.[4] ?? m?.[5];
        if (name) defs.push({ file: f, name, line: i + 1, receiver: m?.[1] });
      });
  }
  // A name is written bare only when the whole corpus defines it once (any file, tests included).
  const byName = new Map<string, number>();
  for (const f of files) {
    for (const line of text(f).split('\n')) {
      const m = DEF.exec(line);
      const name = m?.[2] ?? m?.[3] ?? m?.[4] ?? m?.[5];
      if (name) byName.set(name, (byName.get(name) ?? 0) + 1);
    }
  }
  for (const d of sample(defs, (x) => `${x.file}:${x.name}`, PER_CORPUS.definition)) {
    const qualifier = d.file.endsWith('.go')
      ? d.file.split('/').at(-2)
      : d.file
          .split('/')
          .at(-1)!
          .replace(/\.\w+$/, '');
    // A Go method is named with its package and type (`bufio.Reader.Read`, as pkg.go.dev names it).
    const q =
      byName.get(d.name) === 1 || qualifier === undefined
        ? d.name
        : `${qualifier}.${d.receiver ? d.receiver + '.' : ''}${d.name}`;
    const sites: Array<{ file: string; line: number }> = [];
    const folder = d.file.slice(0, d.file.lastIndexOf('/') + 1);
    const siblings = d.file.endsWith('.go')
      ? files.filter((f) => f.startsWith(folder) && !f.slice(folder.length).includes('/') && f.endsWith('.go'))
      : [d.file];
    for (const f of siblings) {
      text(f)
        .split('\n')
        .forEach((line, i) => {
          const m = DEF.exec(line);
          if ((m?.[2] ?? m?.[3] ?? m?.[4] ?? m?.[5]) === d.name && m?.[1] === d.receiver)
            sites.push({ file: f, line: i + 1 });
        });
    }
    names.push({ corpus: c.name, kind: 'definition', q, file: d.file, symbol: d.name, line: d.line, sites });
  }
  return { errors, names };
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
      `/api/graph/search/files?${qs({ q: q.q, source_id: sourceId, limit: K })}`,
    );
    return res.results.findIndex((r) => r.file_path === q.file) + 1;
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

interface GridHit extends ChunkHit {
  chunk_id: string;
  scores: {
    lexical: { rank: number; score: number } | null;
    semantic: { rank: number; distance: number } | null;
    name: unknown;
  };
}

/** The lexical and semantic rankings of one query to depth 50, for the fusion grid (fusion-grid.ts). */
async function rankLists(q: Query, sourceId: string): Promise<RankLists> {
  const get = (mode: string) =>
    call<{ items: GridHit[] }>(
      GRAPH_URL,
      `/api/graph/search/chunks?${qs({ q: q.q, mode, source_id: sourceId, limit: 100 })}`,
    );
  const [lex, sem] = [await get('lexical'), await get('semantic')];
  const relevant = new Set<string>();
  const isRelevant = (h: ChunkHit) =>
    h.file_path === q.file &&
    (h.symbols.includes(q.symbol) || q.defLines.some((l) => l >= h.start_line && l <= h.end_line));
  for (const h of [...lex.items, ...sem.items]) if (isRelevant(h)) relevant.add(h.chunk_id);
  const rankedBy = <T>(items: GridHit[], pick: (h: GridHit) => { rank: number; v: number } | null) =>
    items
      .map((h) => ({ id: h.chunk_id, r: pick(h) }))
      .filter((x) => x.r !== null)
      .sort((a, b) => a.r!.rank - b.r!.rank)
      .map((x): Ranked<T> => ({ id: x.id, value: x.r!.v }));
  const lexical = rankedBy(
    lex.items,
    (h) => h.scores.lexical && { rank: h.scores.lexical.rank, v: h.scores.lexical.score },
  );
  const semantic = rankedBy(
    sem.items,
    (h) => h.scores.semantic && { rank: h.scores.semantic.rank, v: h.scores.semantic.distance },
  );
  const names = lex.items.filter((h) => h.scores.name !== null).map((h) => h.chunk_id);
  return { q: q.q, kind: q.kind, shape: queryShape(q.q), lexical, semantic, names, relevant };
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

/** Name queries: whether file search, chunk search (hybrid) and symbol search put the target at rank 1. */
async function nameRanks(
  q: NameQuery,
  sourceId: string,
): Promise<{ file: boolean; chunk: boolean; symbol: boolean; chunkInPackage: boolean }> {
  const files = await call<{ results: Array<{ file_path: string }> }>(
    GRAPH_URL,
    `/api/graph/search/files?${qs({ q: q.q, source_id: sourceId, limit: 5 })}`,
  );
  const chunks = await call<ChunkPage>(
    GRAPH_URL,
    `/api/graph/search/chunks?${qs({ q: q.q, mode: 'hybrid', source_id: sourceId, limit: 5 })}`,
  );
  const top = chunks.items[0];
  const chunk =
    top !== undefined &&
    top.file_path === q.file &&
    (q.kind === 'file' || (top.start_line <= q.line && top.end_line >= q.line));
  // Any definition of exactly the queried name (NameQuery.sites: a Go package's platform files each define it).
  const inPackage =
    q.kind === 'definition' &&
    top !== undefined &&
    q.sites.some((x) => x.file === top.file_path && top.start_line <= x.line && top.end_line >= x.line);
  let symbol = false;
  if (q.kind === 'definition') {
    const syms = await call<{ items: Array<{ name: string; file_path: string }> }>(
      GRAPH_URL,
      `/api/graph/search/symbols?${qs({ q: q.symbol, source_id: sourceId, limit: 5 })}`,
    );
    symbol = syms.items.some((h, i) => i === 0 && h.name === q.symbol && h.file_path === q.file);
  }
  return { file: files.results[0]?.file_path === q.file, chunk, symbol, chunkInPackage: chunk || inPackage };
}

async function main() {
  const sources = new Map<string, string>();
  for (const c of CORPORA) sources.set(c.name, (await ensureSynced(c, log)).sourceId);
  if (args.includes('--sync-only')) return;
  const queries = loadQueries();
  const nameQueries: NameQuery[] = [];
  for (const c of CORPORA) {
    const g = generated(c);
    queries.push(...g.errors);
    nameQueries.push(...g.names);
  }
  log(
    `${queries.length} queries, ${nameQueries.length} name queries; load ${loadavg()
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
  const namesOnly = args.includes('--names-only');
  for (let round = 0; round < (namesOnly ? 0 : rounds); round++) {
    for (const q of queries) {
      const src = sources.get(q.corpus)!;
      for (const mode of MODES) ranks[mode].set(q, await rankOf(mode, q, src, ms));
      if (q.kind === 'ident') ranks.symbol.set(q, await symbolRank(q, src, symbolMs));
    }
  }
  if (args.includes('--fusion-grid')) {
    const lists: RankLists[] = [];
    for (const q of queries) lists.push(await rankLists(q, sources.get(q.corpus)!));
    printGrid(lists, (x) => console.log(x));
    // The rankings themselves, to try other fusions offline (bench/search/fusion-grid.ts --lists FILE).
    if (args.includes('--save-lists')) {
      const file = args[args.indexOf('--save-lists') + 1]!;
      writeFileSync(file, JSON.stringify(lists.map((l) => ({ ...l, relevant: [...l.relevant] }))));
      log(`rankings saved to ${file}`);
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
    ['error messages', (q) => q.kind === 'error'],
    ...[...sources.keys()].map((c): [string, (q: Query) => boolean] => [c, (q) => q.corpus === c]),
  ];
  if (!namesOnly) printTable();
  function printTable() {
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
  }
  const named = { file: [] as boolean[][], definition: [] as boolean[][] };
  for (const q of nameQueries) {
    const r = await nameRanks(q, sources.get(q.corpus)!);
    named[q.kind].push([r.file, r.chunk, r.symbol, r.chunkInPackage]);
  }
  const share = (xs: boolean[][], i: number) => `${((100 * xs.filter((x) => x[i]).length) / xs.length).toFixed(1)} %`;
  console.log(`\nname queries at rank 1 (file search names-first | chunk search hybrid | symbol search):`);
  console.log(`  file names (n ${named.file.length}): ${share(named.file, 0)} | ${share(named.file, 1)} | -`);
  console.log(
    `  definitions (n ${named.definition.length}): - | ${share(named.definition, 1)} | ${share(named.definition, 2)}`,
  );
  console.log(
    `  definitions, any definition of the same qualified name (a Go package's platform files): chunk search ${share(named.definition, 3)}`,
  );
  if (args.includes('--show-misses')) {
    for (const q of nameQueries) {
      const r = await nameRanks(q, sources.get(q.corpus)!);
      if (!(q.kind === 'file' ? r.file : r.chunk)) log(`miss ${q.kind} ${q.q} -> ${q.file}:${q.line}`);
    }
  }
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
