/**
 * Symbol graph benchmark (issue 28): prints figures, asserts nothing.
 * `node --import tsx bench/symbol-resolver.ts <dir> [--edges N] [--unresolved N]`
 * Analyses the tree with the engine (2 threads), then resolves the symbol graph on the calling thread: the engine's
 * time, the resolver's time, the size of the symbol facts (JSON) and of the resolver's output, peak RSS, and the
 * edges/unresolved/external counts per language and provenance.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createEngine, importTargets, resolveSymbolGraph } from '../engine/index.ts';
import type { SymbolFileInput } from '../engine/index.ts';

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
if (!dir) throw new Error('usage: bench/symbol-resolver.ts <dir> [--edges N] [--unresolved N]');
const numberAfter = (flag: string): number => {
  const i = args.indexOf(flag);
  return i === -1 ? 0 : Number(args[i + 1] ?? 0);
};

const engine = createEngine({ threads: Number(process.env.BENCH_THREADS ?? 2) });
const files: SymbolFileInput[] = [];
let factsBytes = 0;
let symbols = 0;
const t0 = performance.now();
const tree = engine.openTree(dir);
for await (const a of engine.analyzeFiles(tree, tree.files)) {
  symbols += a.symbols.length;
  if (!a.symbol_facts) continue;
  factsBytes += JSON.stringify(a.symbol_facts).length;
  files.push({ file_path: a.file_path, language: a.language, facts: a.symbol_facts, imports: importTargets(tree, a) });
}
const engineSeconds = (performance.now() - t0) / 1000;
await engine.close();
const heapBefore = process.memoryUsage().heapUsed;
const t1 = performance.now();
const out = resolveSymbolGraph({ files });
const resolveSeconds = (performance.now() - t1) / 1000;
const heapAfter = process.memoryUsage().heapUsed;
const outBytes = JSON.stringify(out.edges).length + JSON.stringify(out.unresolved).length;

const mb = (b: number): string => (b / 1024 / 1024).toFixed(1);
console.log(`${dir}: ${tree.files.length} files, ${files.length} with symbol facts, ${symbols} symbols`);
console.log(
  `engine ${engineSeconds.toFixed(2)} s; resolver ${resolveSeconds.toFixed(2)} s; facts ${mb(factsBytes)} MB JSON; ` +
    `output ${mb(outBytes)} MB JSON; heap +${mb(heapAfter - heapBefore)} MB; peak RSS ${mb(process.resourceUsage().maxRSS * 1024)} MB; ` +
    `load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
console.log(`edges ${out.stats.edges}, unresolved ${out.stats.unresolved}, external calls ${out.stats.external}`);
for (const [lang, s] of Object.entries(out.stats.by_language)) console.log(`  ${lang}: ${JSON.stringify(s)}`);
const nEdges = numberAfter('--edges');
for (const e of out.edges.slice(0, nEdges))
  console.log(`  ${e.label} ${e.from} -> ${e.to} [${e.provenance} ${e.confidence}] ${e.lines.join(',')}`);
const nUnres = numberAfter('--unresolved');
if (nUnres > 0) {
  const step = Math.max(1, Math.floor(out.unresolved.length / nUnres));
  for (let i = 0; i < out.unresolved.length; i += step) {
    const u = out.unresolved[i]!;
    console.log(`  ? ${u.from}:${u.line} ${u.kind} ${u.text} (${u.reason})`);
  }
}
