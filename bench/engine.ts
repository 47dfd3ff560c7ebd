/**
 * Engine benchmark: prints figures, asserts nothing. `node --import tsx bench/engine.ts [corpus ...]`
 * For each corpus (whole, or sampled down to BENCH_MAX_MB): throughput of the full engine (discover + parse +
 * resolve + chunk) with 1 and 2 worker threads beside raw tree-sitter parsing of the same files on one core, in
 * the same run; peak RSS; and Go import resolution against `go list -json std` at package level.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEngine, pluginById } from '../engine/index.ts';
import type { FileAnalysis } from '../engine/index.ts';
import { loadLanguage, parseText } from '../engine/parse.ts';
import { copyInto, corpora, listCorpus } from '../test/engine/corpora.ts';
import type { Corpus } from '../test/engine/corpora.ts';

const MB = 1024 * 1024;
const maxMb = Number(process.env.BENCH_MAX_MB ?? 'Infinity');
const wanted = process.argv.slice(2);

function sampleBySize(c: Corpus, files: string[]): string[] {
  if (!Number.isFinite(maxMb)) return files;
  const sizes = files.map((f) => readFileSync(join(c.root, f)).length);
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total <= maxMb * MB) return files;
  const keep = (maxMb * MB) / total;
  return files.filter((_, i) => (i * keep) % 1 < keep || i === 0);
}

const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 1));

/** CPU seconds (user + system) of the whole process, all threads included (workers that ended too). */
function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface EngineRun {
  seconds: number;
  cpu: number;
  analyses: FileAnalysis[];
}

async function runEngine(dir: string, threads: number): Promise<EngineRun> {
  const engine = createEngine({ threads });
  const analyses: FileAnalysis[] = [];
  const c0 = cpuSeconds();
  const t0 = performance.now();
  for await (const a of engine.analyzeTree(dir)) {
    // Keep what the comparison needs, drop chunk text so memory reflects a streaming caller.
    analyses.push({ ...a, chunks: [], embedding_text: '' });
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds() - c0;
  await engine.close();
  return { seconds, cpu, analyses };
}

/** Repeats a run and keeps the median wall time and the median CPU time (each its own median). */
async function medianRun(dir: string, threads: number): Promise<EngineRun & { all: string }> {
  const list: EngineRun[] = [];
  for (let i = 0; i < runs; i++) list.push(await runEngine(dir, threads));
  return {
    seconds: median(list.map((r) => r.seconds)),
    cpu: median(list.map((r) => r.cpu)),
    analyses: list[0]!.analyses,
    all: list.map((r) => `${r.seconds.toFixed(1)}s/${r.cpu.toFixed(1)}cpu`).join(' '),
  };
}

async function rawParse(
  dir: string,
  analyses: FileAnalysis[],
): Promise<{ seconds: number; cpu: number; bytes: number }> {
  let seconds = 0;
  let cpu = 0;
  let bytes = 0;
  for (const a of analyses) {
    const plugin = pluginById(a.language);
    if (!plugin || a.binary || (a.chunks.length === 0 && a.line_count === 0)) continue;
    if (a.issues.some((i) => i.code === 'file_too_large' || i.code === 'minified_file')) continue;
    const text = readFileSync(join(dir, a.file_path), 'utf8');
    const lang = await loadLanguage(plugin, a.file_path);
    const c0 = cpuSeconds();
    const t0 = performance.now();
    parseText(lang, text);
    seconds += (performance.now() - t0) / 1000;
    cpu += cpuSeconds() - c0;
    bytes += Buffer.byteLength(text);
  }
  return { seconds, cpu, bytes };
}

function goResolution(
  srcDir: string,
  analyses: FileAnalysis[],
): { precision: number; recall: number; tp: number; fp: number; fn: number } {
  const out = execFileSync('go', ['list', '-json', 'std'], { encoding: 'utf8', maxBuffer: 256 * MB, cwd: srcDir });
  const pkgs: Array<{ ImportPath: string; Dir: string; GoFiles?: string[]; CgoFiles?: string[]; Imports?: string[] }> =
    [];
  // `go list -json` prints concatenated objects.
  let depth = 0;
  let start = 0;
  for (let i = 0; i < out.length; i++) {
    if (out[i] === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (out[i] === '}') {
      depth--;
      if (depth === 0) pkgs.push(JSON.parse(out.slice(start, i + 1)) as (typeof pkgs)[number]);
    }
  }
  const byPath = new Map(analyses.map((a) => [a.file_path, a]));
  const dirToPkg = new Map(pkgs.map((p) => [p.Dir.slice(srcDir.length + 1), p.ImportPath]));
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const p of pkgs) {
    const rel = p.Dir.slice(srcDir.length + 1);
    const truth = new Set((p.Imports ?? []).filter((i) => i !== 'C'));
    const found = new Set<string>();
    for (const f of [...(p.GoFiles ?? []), ...(p.CgoFiles ?? [])]) {
      const a = byPath.get(`${rel}/${f}`);
      for (const d of a?.dependencies ?? []) {
        const dir = d.target_path.slice(0, d.target_path.lastIndexOf('/'));
        found.add(dirToPkg.get(dir) ?? `?${dir}`);
      }
    }
    found.delete(p.ImportPath);
    for (const f of found) {
      if (truth.has(f)) tp++;
      else fp++;
    }
    for (const t of truth) if (!found.has(t)) fn++;
  }
  return { precision: tp / (tp + fp), recall: tp / (tp + fn), tp, fp, fn };
}

const fmt = (n: number): string => n.toFixed(2);

for (const corpus of corpora()) {
  if (wanted.length > 0 && !wanted.includes(corpus.name)) continue;
  const whole = corpus.name === 'go-std' && !Number.isFinite(maxMb);
  let dir = corpus.root;
  let temp: string | null = null;
  if (!whole) {
    temp = mkdtempSync(join(tmpdir(), `engine-bench-${corpus.name}-`));
    copyInto(corpus, sampleBySize(corpus, listCorpus(corpus)), temp);
    dir = temp;
  }
  // Warm the page cache so the first timed run does not pay for cold disk reads.
  await runEngine(dir, 2);
  const load0 = loadavg()[0]!;
  const one = await medianRun(dir, 1);
  const two = await medianRun(dir, 2);
  const engineRss = process.resourceUsage().maxRSS / 1024;
  const bytesAll = one.analyses.reduce((s, a) => s + a.size_bytes, 0);
  const raw = await rawParse(dir, one.analyses);
  const langs = new Map<string, number>();
  for (const a of one.analyses)
    langs.set(a.language || '(none)', (langs.get(a.language || '(none)') ?? 0) + a.size_bytes);
  const mix = [...langs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([l, b]) => `${l} ${fmt(b / MB)} MB`)
    .join(', ');
  const e1 = bytesAll / MB / one.seconds;
  const e2 = bytesAll / MB / two.seconds;
  const r = raw.bytes / MB / raw.seconds;
  const rc = raw.bytes / MB / raw.cpu;
  const c1 = bytesAll / MB / one.cpu;
  const c2 = bytesAll / MB / two.cpu;
  console.log(
    `\n== ${corpus.name}${whole ? ' (whole, in place)' : ''}: ${one.analyses.length} files, ${fmt(bytesAll / MB)} MB (${mix})`,
  );
  console.log(`load average (1 min) ${fmt(load0)} before, ${fmt(loadavg()[0]!)} after; ${runs} run(s) each, medians`);
  console.log(
    `raw tree-sitter parse, 1 core: ${fmt(r)} MB/s wall, ${fmt(rc)} MB per CPU-s (${fmt(raw.bytes / MB)} MB parsed)`,
  );
  console.log(
    `engine, 1 worker:  ${fmt(e1)} MB/s = ${fmt((100 * e1) / r)}% of raw parse (${fmt(one.seconds)} s); ` +
      `CPU ${fmt(one.cpu)} s = ${fmt(c1)} MB per CPU-s = ${fmt((100 * c1) / rc)}% of raw parse per CPU-s [${one.all}]`,
  );
  console.log(
    `engine, 2 workers: ${fmt(e2)} MB/s = ${fmt(e2 / e1)}x one worker (${fmt(two.seconds)} s); ` +
      `CPU ${fmt(two.cpu)} s = ${fmt(c2)} MB per CPU-s [${two.all}]`,
  );
  console.log(`peak RSS of the engine runs (process incl. workers): ${fmt(engineRss)} MB`);
  if (corpus.name === 'go-std') {
    const g = goResolution(corpus.root, one.analyses);
    console.log(
      `go import resolution vs go list std: precision ${g.precision.toFixed(4)}, recall ${g.recall.toFixed(4)} (tp ${g.tp}, fp ${g.fp}, fn ${g.fn})`,
    );
  }
  if (temp) rmSync(temp, { recursive: true, force: true });
}
