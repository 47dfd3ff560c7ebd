/**
 * Truth harness of the symbol graph (issue 28 item 7; issue 29's "what the precise tier changed"): on real
 * repositories, a precise SCIP indexer's view of "a reference to a function or method inside another's body" is the
 * truth; the engine's symbol graph (engine/symbols resolveSymbolGraph: calls + references) and GitNexus's CALLS are
 * scored against it with precision, recall and F1, per language and repository.
 *
 *   set -a; source .stack/env; set +a          # CKG_SCIP_* from scripts/stack/indexers.sh
 *   heavy node --import tsx bench/truth-symbols/truth.ts [--repos hono,flask] [--mirrors /work/.mirror]
 *         [--dir name=PATH] [--no-gitnexus] [--show N] [--deps]
 *
 * Repositories come from git mirrors (`<mirrors>/<owner>+<name>/repo`, a bare repository: the search tool's fetch
 * lays them out so), copied with `git archive HEAD` into a temporary folder at run time; nothing is committed.
 *
 * Matching rule (both ways, per repository):
 * - truth edges: engine/precise/edges.ts scipUses — the callable a use sits in (innermost body; the indexer's
 *   enclosing_range, or for scip-go the syntax tree's extent of the definition on the indexer's name line) → the
 *   callable used (a method descriptor, or a scip-typescript term holding a function); calls and references alike;
 * - an indexer definition is the engine's definition with the same file and name whose [line, end_line] holds the
 *   indexer's name line (innermost; `<constructor>` = `constructor`, `<init>` = the class name): matchDefinition;
 * - a GitNexus node is the engine's definition with the same file and name whose [line, end_line] holds its
 *   startLine (+1: GitNexus lines are 0-based);
 * - compared: (caller, callee) pairs of engine SymbolRefs where both ends are matched definitions the indexer calls
 *   callable. Edges with an end outside that set are counted apart ("unmatched"), not scored.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../engine/index.ts';
import { importTargets, resolveSymbolGraph, symbolRef } from '../../engine/symbols/index.ts';
import type { SymbolFileInput } from '../../engine/symbols/index.ts';
import { readScipIndex } from '../../engine/precise/scip.ts';
import { matchDefinition, scipDefinitions, scipUses, type EngineDefinition } from '../../engine/precise/edges.ts';
import { installedIndexers, runIndexer, type PreciseLanguage } from '../../activities/precise/indexers.ts';
import { installGitnexus } from '../support/gitnexus.ts';

interface RepoSpec {
  name: string;
  mirror: string;
  /** The language scored (engine language ids in `languages`). */
  language: 'typescript' | 'javascript' | 'python' | 'go' | 'java';
  languages: string[];
  indexer: PreciseLanguage;
  shape: string;
}

const REPOS: RepoSpec[] = [
  {
    name: 'hono',
    mirror: 'honojs+hono',
    language: 'typescript',
    languages: ['typescript', 'tsx'],
    indexer: 'typescript',
    shape: 'web framework, ~500 files',
  },
  {
    name: 'zod',
    mirror: 'colinhacks+zod',
    language: 'typescript',
    languages: ['typescript', 'tsx'],
    indexer: 'typescript',
    shape: 'monorepo of packages, heavy generics',
  },
  {
    name: 'express',
    mirror: 'expressjs+express',
    language: 'javascript',
    languages: ['javascript'],
    indexer: 'typescript',
    shape: 'CommonJS, prototype methods',
  },
  {
    name: 'axios',
    mirror: 'axios+axios',
    language: 'javascript',
    languages: ['javascript'],
    indexer: 'typescript',
    shape: 'ES modules, classes, adapters',
  },
  {
    name: 'fastapi',
    mirror: 'fastapi+fastapi',
    language: 'python',
    languages: ['python'],
    indexer: 'python',
    shape: 'library + 3k docs example files',
  },
  {
    name: 'flask',
    mirror: 'pallets+flask',
    language: 'python',
    languages: ['python'],
    indexer: 'python',
    shape: 'classes, decorators, package',
  },
  {
    name: 'chi',
    mirror: 'go-chi+chi',
    language: 'go',
    languages: ['go'],
    indexer: 'go',
    shape: 'router, no dependencies',
  },
  {
    name: 'cobra',
    mirror: 'spf13+cobra',
    language: 'go',
    languages: ['go'],
    indexer: 'go',
    shape: 'CLI library, one dependency',
  },
];

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const mirrors = opt('--mirrors') ?? '/work/.mirror';
const only = opt('--repos')?.split(',');
const show = Number(opt('--show') ?? '0');
const withGitnexus = !args.includes('--no-gitnexus');
const allowDeps = args.includes('--deps');
const dirs = new Map<string, string>();
for (let i = 0; i < args.length; i++)
  if (args[i] === '--dir') {
    const [n, p] = args[i + 1]!.split('=');
    dirs.set(n!, p!);
  }

interface Score {
  tp: number;
  predicted: number;
  truth: number;
  fp: string[];
  fn: string[];
}

function score(predicted: Set<string>, truth: Set<string>): Score {
  let tp = 0;
  const fp: string[] = [];
  for (const e of predicted) {
    if (truth.has(e)) tp++;
    else fp.push(e);
  }
  const fn = [...truth].filter((e) => !predicted.has(e));
  return { tp, predicted: predicted.size, truth: truth.size, fp, fn };
}

function fmt(s: Score): string {
  const p = s.predicted === 0 ? 0 : s.tp / s.predicted;
  const r = s.truth === 0 ? 0 : s.tp / s.truth;
  const f = p + r === 0 ? 0 : (2 * p * r) / (p + r);
  return `P ${p.toFixed(3)} R ${r.toFixed(3)} F1 ${f.toFixed(3)} (tp ${s.tp}, predicted ${s.predicted}, truth ${s.truth})`;
}

function checkout(spec: RepoSpec): string {
  const dir = mkdtempSync(join(tmpdir(), `truth-sym-${spec.name}-`));
  const given = dirs.get(spec.name);
  if (given) execFileSync('cp', ['-a', `${given}/.`, dir]);
  else {
    const git = join(mirrors, spec.mirror, 'repo');
    if (!existsSync(git)) throw new Error(`no mirror ${git} (fetch ${spec.mirror.replace('+', '/')} first)`);
    execFileSync('bash', ['-c', `git --git-dir="$0" archive HEAD | tar -x -C "$1"`, git, dir]);
  }
  execFileSync('git', ['init', '-q', dir]);
  return dir;
}

interface GitnexusCall {
  fromFile: string;
  fromName: string;
  fromLine: number;
  toFile: string;
  toName: string;
  toLine: number;
}

function gitnexusCalls(bin: string, root: string): { calls: GitnexusCall[]; ms: number } | { error: string } {
  const t0 = performance.now();
  const a = spawnSync(bin, ['analyze', root, '--skip-agents-md'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CI: '1' },
    timeout: 30 * 60_000,
    maxBuffer: 1 << 26,
  });
  const ms = performance.now() - t0;
  if (a.status !== 0) return { error: `analyze exit ${a.status}: ${(a.stderr || a.stdout).slice(-400)}` };
  const q =
    'MATCH (a)-[r:CodeRelation]->(b) WHERE r.type = "CALLS" RETURN a.filePath, a.name, a.startLine, b.filePath, b.name, b.startLine';
  const c = spawnSync(bin, ['cypher', q], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28, timeout: 10 * 60_000 });
  if (c.status !== 0) return { error: `cypher exit ${c.status}: ${(c.stderr || c.stdout).slice(-400)}` };
  return { calls: parseGitnexusRows(c.stdout), ms };
}

/** GitNexus's cypher prints JSON (an object with a `markdown` table, or rows); both are read. */
function parseGitnexusRows(out: string): GitnexusCall[] {
  const text = out.slice(
    out.indexOf('{') >= 0 && (out.indexOf('[') < 0 || out.indexOf('{') < out.indexOf('['))
      ? out.indexOf('{')
      : out.indexOf('['),
  );
  let rows: unknown[][] = [];
  const row = (r: unknown): unknown[] => (Array.isArray(r) ? (r as unknown[]) : Object.values(r as object));
  try {
    const parsed = JSON.parse(text) as unknown;
    if (Array.isArray(parsed)) rows = (parsed as unknown[]).map(row);
    else if (parsed && typeof parsed === 'object' && 'markdown' in parsed) {
      const md = String((parsed as { markdown: string }).markdown);
      rows = md
        .split('\n')
        .slice(2)
        .filter((l) => l.startsWith('|'))
        .map((l) =>
          l
            .split('|')
            .slice(1, -1)
            .map((c) => c.trim()),
        );
    } else if (parsed && typeof parsed === 'object' && 'rows' in parsed) {
      rows = ((parsed as { rows: unknown[] }).rows ?? []).map(row);
    }
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

async function one(spec: RepoSpec, gitnexusBin: string | null): Promise<void> {
  const root = checkout(spec);
  const scratch = mkdtempSync(join(tmpdir(), `truth-sym-scratch-`));
  try {
    // Engine: facts per file, then the resolver.
    const t0 = performance.now();
    const engine = createEngine({ threads: 2 });
    const tree = engine.openTree(root);
    const files: SymbolFileInput[] = [];
    const defsByFile = new Map<string, EngineDefinition[]>();
    const callableRefs = new Set<string>();
    for await (const a of engine.analyzeFiles(tree, tree.files)) {
      if (!spec.languages.includes(a.language) || !a.symbol_facts) continue;
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
        })),
      );
      for (const d of a.symbol_facts.defs)
        if (d.symbol_kind === 'function' || d.symbol_kind === 'method' || d.symbol_kind === 'constructor')
          callableRefs.add(symbolRef(a.file_path, d.key));
    }
    await engine.close();
    const resolved = resolveSymbolGraph({ files });
    const engineMs = performance.now() - t0;

    // Indexer.
    const bins = installedIndexers();
    const bin = bins[spec.indexer];
    if (!bin)
      throw new Error(`indexer ${spec.indexer} is not installed (scripts/stack/indexers.sh; source .stack/env)`);
    const output = join(scratch, 'index.scip');
    const run = await runIndexer({
      language: spec.indexer,
      bin,
      root,
      output,
      scratch,
      limits: { wallMs: 30 * 60_000, memoryMb: 8192 },
      allowDependencies: allowDeps || spec.indexer === 'go',
      version: 'HEAD',
      project: spec.name,
      goCacheDir: join(process.env.CKG_CACHE_DIR ?? join(homedir(), '.cache', 'ckg'), 'scip', 'go-cache'),
    });
    if (!run.ok) throw new Error(`${spec.indexer} failed (${run.failure}): ${run.tail}`);
    const index = readScipIndex(readFileSync(output));
    const defs = scipDefinitions(index);
    const { edges: scipEdges } = scipUses(index, defs, {
      bodyOf: (path, def) => {
        const m = matchDefinition(def, defsByFile.get(path));
        const d = m ? defsByFile.get(path)!.find((x) => x.key === m) : undefined;
        return d ? [def.line, d.end_line] : null;
      },
    });
    // Map the indexer's callables to engine refs.
    const mapped = new Map<string, string>();
    let callables = 0;
    for (const d of defs.values()) {
      if (!d.callable) continue;
      callables++;
      const key = matchDefinition(d, defsByFile.get(d.path));
      if (key) mapped.set(d.symbol, symbolRef(d.path, key));
    }
    const universe = new Set<string>([...mapped.values()].filter((r) => callableRefs.has(r)));
    const truth = new Set<string>();
    let truthUnmatched = 0;
    for (const e of scipEdges) {
      const a = mapped.get(e.from);
      const b = mapped.get(e.to);
      if (a && b && universe.has(a) && universe.has(b)) truth.add(`${a} -> ${b}`);
      else truthUnmatched++;
    }
    const ours = new Set<string>();
    let oursOutside = 0;
    const byProvenance: Record<string, { tp: number; n: number }> = {};
    for (const e of resolved.edges) {
      if (e.label !== 'calls' && e.label !== 'references') continue;
      if (!universe.has(e.from) || !universe.has(e.to)) {
        oursOutside++;
        continue;
      }
      const k = `${e.from} -> ${e.to}`;
      ours.add(k);
      const p = (byProvenance[e.provenance] ??= { tp: 0, n: 0 });
      p.n++;
      if (truth.has(k)) p.tp++;
    }
    const s = score(ours, truth);
    console.log(
      `\n== ${spec.language} ${spec.name} (${spec.shape}): ${files.length} files; ${index.tool.name} ${index.tool.version} ${(run.ms / 1000).toFixed(1)} s, peak ${run.peakRssMb} MB; engine+resolve ${(engineMs / 1000).toFixed(1)} s; load ${loadavg()[0]!.toFixed(2)}`,
    );
    console.log(
      `   indexer callables ${callables}, matched to engine definitions ${mapped.size}, scored universe ${universe.size}; truth edges ${truth.size} (+${truthUnmatched} with an unmatched end)`,
    );
    console.log(`   engine  ${fmt(s)}  [${oursOutside} edges with an end outside the universe]`);
    console.log(
      `           by provenance: ${Object.entries(byProvenance)
        .map(([k, v]) => `${k} ${v.tp}/${v.n}`)
        .join(', ')}`,
    );
    for (const [t, list] of [
      ['engine only', s.fp],
      ['truth only', s.fn],
    ] as const)
      for (const e of list.sort().slice(0, show)) console.log(`   ${t}: ${e}`);

    if (gitnexusBin) {
      const g = gitnexusCalls(gitnexusBin, root);
      if ('error' in g) console.log(`   gitnexus: ${g.error}`);
      else {
        const theirs = new Set<string>();
        let outside = 0;
        const ref = (file: string, name: string, line: number): string | null => {
          const key = matchDefinition(
            { symbol: '', path: file, name, container: null, line: line + 1, body: null, callable: true },
            defsByFile.get(file),
          );
          return key ? symbolRef(file, key) : null;
        };
        for (const c of g.calls) {
          const a = ref(c.fromFile, c.fromName, c.fromLine);
          const b = ref(c.toFile, c.toName, c.toLine);
          if (a && b && universe.has(a) && universe.has(b)) theirs.add(`${a} -> ${b}`);
          else outside++;
        }
        console.log(
          `   gitnexus ${fmt(score(theirs, truth))}  [${g.calls.length} CALLS, ${outside} with an end outside the universe; analyze ${(g.ms / 1000).toFixed(1)} s]`,
        );
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const gitnexusBin = withGitnexus ? installGitnexus() : null;
  mkdirSync(tmpdir(), { recursive: true });
  for (const spec of REPOS) {
    if (only && !only.includes(spec.name)) continue;
    try {
      await one(spec, gitnexusBin);
    } catch (err) {
      console.log(`\n== ${spec.language} ${spec.name}: failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

await main();
