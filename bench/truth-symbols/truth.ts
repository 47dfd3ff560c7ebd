/**
 * Truth harness of the symbol graph (issue 28 item 7): on real repositories, a precise SCIP indexer's view of "a
 * reference to a function or method inside another's body" is the truth; the engine's heuristic symbol graph
 * (engine/symbols resolveSymbolGraph: calls + references) and GitNexus's CALLS on the same checkout are scored against
 * it with precision, recall and F1, per repository and per language (micro-averaged over its repositories).
 *
 *   set -a; source .stack/env; set +a          # CKG_SCIP_* from scripts/stack/indexers.sh
 *   heavy node --import tsx bench/truth-symbols/truth.ts [--repos hono,flask] [--mirrors /work/.mirror]
 *         [--no-gitnexus] [--show N] [--out results.jsonl]
 *   node --import tsx bench/truth-symbols/truth.ts --table results.jsonl     # the per-language table of earlier runs
 *
 * Repositories (bench/truth-symbols/repos.ts) come from git mirrors (`<mirrors>/<owner>+<name>/repo`, as the search
 * tool's fetch lays them out), copied with `git archive HEAD` into a temporary folder and committed there (GitNexus
 * reads a git checkout); nothing is kept. The indexers: bench/truth-symbols/indexer.ts. The matching rules (how index
 * occurrences and both tools' edges become comparable (caller, target) pairs, and what is left out):
 * bench/truth-symbols/match.ts and docs/benchmarks.md "Symbol graph truth".
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../engine/index.ts';
import { importTargets, resolveSymbolGraph } from '../../engine/symbols/index.ts';
import type { ResolveOutput, SymbolFileInput } from '../../engine/symbols/index.ts';
import { installGitnexus } from '../support/gitnexus.ts';
import { runTruthIndexer } from './indexer.ts';
import {
  buildScope,
  engineEdges,
  fmt,
  gitnexusEdges,
  prf,
  score,
  truthEdges,
  type Dropped,
  type EdgeSet,
  type EngineDef,
  type GitnexusCall,
  type Score,
} from './match.ts';
import { REPOS, type RepoSpec } from './repos.ts';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const mirrors = opt('--mirrors') ?? '/work/.mirror';
const only = opt('--repos')?.split(',');
const show = Number(opt('--show') ?? '0');
const withGitnexus = !args.includes('--no-gitnexus');
const out = opt('--out');

interface RepoResult {
  repo: string;
  language: string;
  at: string;
  load: number;
  files: number;
  indexer: string;
  indexer_s: number;
  engine_s: number;
  indexer_callables: number;
  scored: number;
  truth_dropped: Dropped;
  engine: Score;
  engine_dropped: Dropped;
  gitnexus?: Score;
  gitnexus_dropped?: Dropped;
  gitnexus_calls?: number;
  gitnexus_error?: string;
}

function checkout(spec: RepoSpec): string {
  const dir = mkdtempSync(join(tmpdir(), `truth-sym-${spec.name}-`));
  const git = join(mirrors, spec.mirror, 'repo');
  if (!existsSync(git)) throw new Error(`no mirror ${git} (fetch ${spec.mirror.replace('+', '/')} first)`);
  execFileSync('bash', ['-c', `git --git-dir="$0" archive HEAD | tar -x -C "$1"`, git, dir]);
  const g = (...a: string[]) =>
    execFileSync('git', ['-c', 'user.name=truth', '-c', 'user.email=truth@localhost', ...a], {
      cwd: dir,
      stdio: 'ignore',
    });
  g('init', '-q');
  g('add', '-A');
  g('commit', '-q', '--no-verify', '-m', 'snapshot');
  return dir;
}

/**
 * GitNexus's CALLS on the checkout. Its home (the registry of indexed repositories) is a private folder of the run:
 * with several repositories registered, `cypher` asks which one; the query also names the checkout (`-r`).
 */
function gitnexusCalls(
  bin: string,
  root: string,
  home: string,
): { calls: GitnexusCall[]; ms: number } | { error: string } {
  const t0 = performance.now();
  const env = { ...process.env, CI: '1', HOME: home };
  const a = spawnSync(bin, ['analyze', '--skip-agents-md', root], {
    cwd: root,
    encoding: 'utf8',
    env,
    timeout: 30 * 60_000,
    maxBuffer: 1 << 26,
  });
  const ms = performance.now() - t0;
  if (a.status !== 0) return { error: `analyze exit ${a.status}: ${(a.stderr || a.stdout).slice(-400)}` };
  const q =
    'MATCH (a)-[r:CodeRelation]->(b) WHERE r.type = "CALLS" RETURN a.filePath, a.name, a.startLine, b.filePath, b.name, b.startLine';
  // Its answer goes to a file: GitNexus exits right after writing it, and through a pipe only the first ~200 KB
  // arrived (gson's 6,742 CALLS are 1.2 MB: the JSON was cut, so nothing parsed and the Java figures read 0).
  const answer = join(home, 'cypher.json');
  const fd = openSync(answer, 'w');
  // spawnSync reports a failure in its result, it does not throw.
  const c = spawnSync(bin, ['cypher', '-r', root, q], {
    cwd: root,
    env,
    encoding: 'utf8',
    stdio: ['ignore', fd, 'pipe'],
    maxBuffer: 1 << 26,
    timeout: 10 * 60_000,
  });
  closeSync(fd);
  const text = readFileSync(answer, 'utf8');
  if (c.status !== 0) return { error: `cypher exit ${c.status}: ${(c.stderr || text).slice(-400)}` };
  const calls = parseGitnexusRows(text);
  const declared = /"row_count":\s*(\d+)/.exec(text);
  if (declared && Number(declared[1]) !== calls.length)
    return { error: `cypher: ${calls.length} rows read of ${declared[1]} (${text.length} characters)` };
  return { calls, ms };
}

/** GitNexus's cypher prints JSON (an object with a `markdown` table, or rows); both are read. */
function parseGitnexusRows(text: string): GitnexusCall[] {
  // The JSON starts a line (a log line before it may hold brackets).
  const at = text.search(/^[{[]/m);
  if (at < 0) return [];
  let rows: unknown[][] = [];
  const row = (r: unknown): unknown[] => (Array.isArray(r) ? (r as unknown[]) : Object.values(r as object));
  try {
    const parsed = JSON.parse(text.slice(at)) as unknown;
    if (Array.isArray(parsed)) rows = (parsed as unknown[]).map(row);
    else if (parsed && typeof parsed === 'object' && 'markdown' in parsed) {
      rows = String((parsed as { markdown: string }).markdown)
        .split('\n')
        .slice(2)
        .filter((l) => l.startsWith('|'))
        .map((l) =>
          l
            .split('|')
            .slice(1, -1)
            .map((c) => c.trim()),
        );
    } else if (parsed && typeof parsed === 'object' && 'rows' in parsed)
      rows = ((parsed as { rows: unknown[] }).rows ?? []).map(row);
  } catch {
    return [];
  }
  return rows.map((r) => ({
    fromFile: String(r[0]),
    fromName: String(r[1]),
    fromLine: Number(r[2]),
    toFile: String(r[3]),
    toName: String(r[4]),
    toLine: Number(r[5]),
  }));
}

async function engineGraph(
  spec: RepoSpec,
  root: string,
): Promise<{ resolved: ResolveOutput; defsByFile: Map<string, EngineDef[]>; files: number; ms: number }> {
  const t0 = performance.now();
  const engine = createEngine({ threads: 2 });
  const tree = engine.openTree(root);
  const files: SymbolFileInput[] = [];
  const defsByFile = new Map<string, EngineDef[]>();
  for await (const a of engine.analyzeFiles(tree, tree.files)) {
    if (!a.symbol_facts) continue;
    // Every language's facts feed the resolver (a TS file may import JS); only `spec.languages` are scored (the
    // indexer's documents decide which files count).
    files.push({
      file_path: a.file_path,
      language: a.language,
      facts: a.symbol_facts,
      imports: importTargets(tree, a),
    });
    defsByFile.set(
      a.file_path,
      a.symbol_facts.defs.map((d) => ({
        key: d.key,
        name: d.name,
        kind: d.symbol_kind,
        line: d.line,
        end_line: d.end_line,
        container: d.container,
      })),
    );
  }
  await engine.close();
  const resolved = resolveSymbolGraph({ files });
  return {
    resolved,
    defsByFile,
    files: files.filter((f) => spec.languages.includes(f.language)).length,
    ms: performance.now() - t0,
  };
}

function explain(label: string, list: string[], set: EdgeSet, resolved: ResolveOutput): void {
  for (const k of list.sort().slice(0, show)) {
    const e = set.get(k)!;
    const lines = [...e.lines].sort((a, b) => a - b);
    let why = '';
    if (label === 'truth only') {
      const from = k.slice(0, k.indexOf(' -> '));
      const file = from.slice(0, from.lastIndexOf('#'));
      const un = resolved.unresolved.filter((u) => u.from.startsWith(`${file}#`) && lines.includes(u.line));
      if (un.length) why = `  engine unresolved: ${un.map((u) => `${u.text}@${u.line}:${u.reason}`).join(', ')}`;
    }
    console.log(`   ${label}: ${k}  lines ${lines.join(',')}${e.provenance ? ` [${e.provenance}]` : ''}${why}`);
  }
}

async function one(spec: RepoSpec, gitnexusBin: string | null): Promise<RepoResult> {
  const root = checkout(spec);
  const scratch = mkdtempSync(join(tmpdir(), `truth-sym-scratch-`));
  try {
    const idx = await runTruthIndexer(spec, root, scratch);
    const eng = await engineGraph(spec, root);
    const scope = buildScope(idx.index, eng.defsByFile);
    const truth = truthEdges(scope, idx.index);
    const ours = engineEdges(scope, eng.resolved);
    const s = score(ours.edges, truth.edges);
    const load = loadavg()[0]!;
    const result: RepoResult = {
      repo: spec.name,
      language: spec.language,
      at: new Date().toISOString(),
      load,
      files: eng.files,
      indexer: `${idx.index.tool.name} ${idx.index.tool.version}`,
      indexer_s: idx.ms / 1000,
      engine_s: eng.ms / 1000,
      indexer_callables: scope.indexerCallables,
      scored: scope.scored.size,
      truth_dropped: truth.dropped,
      engine: { tp: s.tp, predicted: s.predicted, truth: s.truth },
      engine_dropped: ours.dropped,
    };
    console.log(
      `\n== ${spec.language} ${spec.name} (${spec.shape}): ${eng.files} files; ${result.indexer} ${result.indexer_s.toFixed(1)} s; engine+resolve ${result.engine_s.toFixed(1)} s; load ${load.toFixed(2)}`,
    );
    console.log(
      `   indexer callables ${scope.indexerCallables}, scored (matched engine functions/methods) ${scope.scored.size}; truth sites dropped ${JSON.stringify(truth.dropped)}`,
    );
    console.log(`   engine   ${fmt(s)}  dropped ${JSON.stringify(ours.dropped)}`);
    const byProv: Record<string, { tp: number; n: number }> = {};
    for (const [k, e] of ours.edges) {
      const p = (byProv[e.provenance ?? '?'] ??= { tp: 0, n: 0 });
      p.n++;
      if (truth.edges.has(k)) p.tp++;
    }
    console.log(
      `            by provenance (true/all): ${Object.entries(byProv)
        .sort()
        .map(([k, v]) => `${k} ${v.tp}/${v.n}`)
        .join(', ')}`,
    );
    let unmatched = 0;
    for (const d of scope.indexerDefs.values()) {
      if (!d.callable) continue;
      const ref = scope.mapped.get(d.symbol);
      if (ref && scope.scored.has(ref)) continue;
      if (unmatched++ < show)
        console.log(
          `   unscored indexer callable: ${d.path}:${d.line} ${d.name}${ref ? ` (engine ${scope.byRef.get(ref)?.kind} ${ref})` : ' (no engine definition)'}`,
        );
    }
    explain('engine only', s.fp, ours.edges, eng.resolved);
    explain('truth only', s.fn, truth.edges, eng.resolved);
    if (gitnexusBin) {
      const home = join(scratch, 'gitnexus-home');
      mkdirSync(home, { recursive: true });
      const g = gitnexusCalls(gitnexusBin, root, home);
      if ('error' in g) {
        result.gitnexus_error = g.error;
        console.log(`   gitnexus ${g.error}`);
      } else {
        const theirs = gitnexusEdges(scope, g.calls);
        const gs = score(theirs.edges, truth.edges);
        result.gitnexus = { tp: gs.tp, predicted: gs.predicted, truth: gs.truth };
        result.gitnexus_dropped = theirs.dropped;
        result.gitnexus_calls = g.calls.length;
        console.log(
          `   gitnexus ${fmt(gs)}  dropped ${JSON.stringify(theirs.dropped)} of ${g.calls.length} CALLS; analyze ${(g.ms / 1000).toFixed(1)} s`,
        );
      }
    }
    if (out) appendFileSync(out, JSON.stringify(result) + '\n');
    return result;
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

const sum = (a: Score, b: Score): Score => ({
  tp: a.tp + b.tp,
  predicted: a.predicted + b.predicted,
  truth: a.truth + b.truth,
});
const cell = (s: Score | undefined): string => {
  if (!s) return '— | — | —';
  const { p, r, f1 } = prf(s);
  return `${p.toFixed(3)} | ${r.toFixed(3)} | ${f1.toFixed(3)}`;
};

/** The markdown table of results (the last result per repository), per repository and per language. */
function table(results: RepoResult[]): string {
  const last = new Map<string, RepoResult>();
  for (const r of results) last.set(r.repo, r);
  const rows = [...last.values()].sort((a, b) => a.language.localeCompare(b.language) || a.repo.localeCompare(b.repo));
  const lines = [
    '| language | repository | truth edges | engine P | R | F1 | GitNexus P | R | F1 | load |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const langs = [...new Set(rows.map((r) => r.language))];
  for (const lang of langs) {
    const rs = rows.filter((r) => r.language === lang);
    for (const r of rs)
      lines.push(
        `| ${lang} | ${r.repo} | ${r.engine.truth} | ${cell(r.engine)} | ${cell(r.gitnexus)} | ${r.load.toFixed(1)} |`,
      );
    const e = rs.map((r) => r.engine).reduce(sum);
    const g = rs.every((r) => r.gitnexus) ? rs.map((r) => r.gitnexus!).reduce(sum) : undefined;
    lines.push(`| **${lang}** | all (${rs.length}) | ${e.truth} | ${cell(e)} | ${cell(g)} | |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const tableFile = opt('--table');
  if (tableFile) {
    const results = readFileSync(tableFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as RepoResult);
    console.log(table(results));
    return;
  }
  const gitnexusBin = withGitnexus ? installGitnexus() : null;
  const results: RepoResult[] = [];
  for (const spec of REPOS) {
    if (only ? !only.includes(spec.name) : spec.name === 'express') continue;
    try {
      results.push(await one(spec, gitnexusBin));
    } catch (err) {
      console.log(`\n== ${spec.language} ${spec.name}: failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (results.length) console.log(`\n${table(results)}`);
}

await main();
