/**
 * Truth harness (issue 16): compares the engine's depends_on edges of one repository with an independent resolver
 * of the language (its own compiler or import system), printing precision, recall and the disagreeing edges.
 *
 *   node --import tsx bench/truth/truth.ts <language> <checkout> [--show N]
 *
 * language: python | javascript (JS and TS files) | go | c (C and C++) | java | ruby | rust | php.
 * The engine runs directly on the checkout: a sync stores exactly FileAnalysis.dependencies as depends_on
 * (activities/sync/ingest.ts streams analyzeTree, activities/store/graph.ts writes one edge per distinct target that
 * has a File vertex, self-edges dropped; every discovered file gets a vertex), so the engine's edges are the sync's edges
 * without a database round trip. Resolvers are in bench/truth/<language>.ts; each states its build assumptions.
 */
import { createEngine } from '../../engine/index.ts';
import { loadavg } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import type { Truth } from './types.ts';
import { pythonTruth } from './python.ts';
import { jsTruth } from './javascript.ts';
import { goTruth } from './go.ts';
import { cTruth } from './c.ts';
import { javaTruth } from './java.ts';
import { rubyTruth } from './ruby.ts';
import { rustTruth } from './rust.ts';
import { phpTruth } from './php.ts';

const RESOLVERS: Record<string, { languages: string[]; run: (root: string) => Truth }> = {
  python: { languages: ['python'], run: pythonTruth },
  javascript: { languages: ['javascript', 'typescript'], run: jsTruth },
  go: { languages: ['go'], run: goTruth },
  c: { languages: ['c', 'cpp'], run: cTruth },
  java: { languages: ['java'], run: javaTruth },
  ruby: { languages: ['ruby'], run: rubyTruth },
  rust: { languages: ['rust'], run: rustTruth },
  php: { languages: ['php'], run: phpTruth },
};

const [language, dir, ...rest] = process.argv.slice(2);
const resolver = language === undefined ? undefined : RESOLVERS[language];
if (!resolver || dir === undefined) {
  console.error(`usage: truth.ts <${Object.keys(RESOLVERS).join('|')}> <checkout> [--show N]`);
  process.exit(2);
}
const showAt = rest.indexOf('--show');
const show = showAt === -1 ? 15 : Number(rest[showAt + 1]);
const root = resolvePath(dir);

const engine = createEngine({ threads: 2 });
const engineEdges = new Map<string, Set<string>>();
const languageOf = new Map<string, string>();
for await (const a of engine.analyzeTree(root)) {
  languageOf.set(a.file_path, a.language);
  if (!resolver.languages.includes(a.language)) continue;
  engineEdges.set(a.file_path, new Set(a.dependencies.map((d) => d.target_path)));
}
await engine.close();

const truth = resolver.run(root);
// Compare within the resolver's scope: the files it analysed (a tool may skip files it cannot build).
let tp = 0;
let engineTotal = 0;
let recalled = 0;
const falsePositives: string[] = [];
const falseNegatives: string[] = [];
const group = truth.group ?? ((f: string) => f);
const engineByUnit = new Map<string, Set<string>>();
for (const [from, targets] of engineEdges) {
  if (!truth.scope.has(from)) continue;
  const unit = group(from);
  let set = engineByUnit.get(unit);
  if (!set) engineByUnit.set(unit, (set = new Set()));
  for (const t of targets) if (!truth.targetFilter || truth.targetFilter(t, languageOf.get(t) ?? '')) set.add(t);
}
const truthByUnit = new Map<string, Array<Set<string>>>();
for (const item of truth.items) {
  if (item.targets.size === 0) continue;
  const unit = group(item.from);
  let list = truthByUnit.get(unit);
  if (!list) truthByUnit.set(unit, (list = []));
  // One item per distinct target set of a unit.
  const key = [...item.targets].sort().join('|');
  if (!list.some((s) => [...s].sort().join('|') === key)) list.push(item.targets);
}
for (const [unit, found] of engineByUnit) {
  const wanted = truthByUnit.get(unit) ?? [];
  for (const t of found) {
    if (t === unit) continue;
    engineTotal++;
    if (wanted.some((s) => s.has(t)) || truth.plausible?.(unit, t)) tp++;
    else falsePositives.push(`${unit} -> ${t}`);
  }
}
let truthTotal = 0;
for (const [unit, wanted] of truthByUnit) {
  const found = engineByUnit.get(unit) ?? new Set<string>();
  for (const s of wanted) {
    if (s.has(unit)) continue;
    truthTotal++;
    if ([...found].some((t) => s.has(t))) recalled++;
    else falseNegatives.push(`${unit} -> ${[...s].sort().slice(0, 3).join(' | ')}${s.size > 3 ? ' | …' : ''}`);
  }
}
const precision = engineTotal === 0 ? 1 : tp / engineTotal;
const recall = truthTotal === 0 ? 1 : recalled / truthTotal;
console.log(`truth: ${truth.tool}`);
console.log(
  `${language} ${root}: ${truth.scope.size} files in scope; engine edges ${engineTotal}, truth edges ${truthTotal}`,
);
console.log(
  `precision ${precision.toFixed(4)} (${tp}/${engineTotal})  recall ${recall.toFixed(4)} (${recalled}/${truthTotal})  load ${loadavg()[0]!.toFixed(2)}`,
);
for (const [title, list] of [
  ['engine only (false positives)', falsePositives],
  ['truth only (false negatives)', falseNegatives],
] as const) {
  if (list.length === 0) continue;
  console.log(`-- ${title}: ${list.length}${list.length > show ? `, first ${show}` : ''}`);
  for (const e of list.sort().slice(0, show)) console.log(`   ${e}`);
}
