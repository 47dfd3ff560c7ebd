/**
 * Syntax errors per grammar on real code: runs the engine's own analysis (workers, the same parse path as a sync)
 * over corpora and counts the files with a `syntax_error` issue, per corpus and language. Valid code that the
 * grammar cannot parse loses symbols, imports and chunk boundaries, so this is the trees' error rate.
 *
 *   node --import tsx bench/syntax-errors.ts [name=dir ...] [--defaults [--only a,b]] [--max-files N] [--show N]
 *                                            [--threads N]
 *
 * Each `name=dir` is a corpus (a checkout copied into a temporary folder, say). `--defaults` adds the code already on
 * the machine: the Go standard library, CPython's Lib (without site-packages), the JDK's java.base sources (from
 * src.zip, unzipped into a temporary folder), /usr/include and the project's node_modules (`--only` picks some of
 * them by name: go-stdlib, cpython-lib, jdk-java.base, usr-include, node_modules). `--max-files N` keeps at
 * most N files per corpus and language (an even spread over the sorted paths, so runs compare); `--show N` prints the
 * first N failing files per corpus and language with the error's line.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createEngine } from '../engine/index.ts';
import type { DiscoveredFile } from '../engine/types.ts';
import { pluginForExtension } from '../engine/languages/registry.ts';

interface Corpus {
  name: string;
  dir: string;
  /** Keeps a repository-relative path (default: every file). */
  keep?: (path: string) => boolean;
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

const maxFiles = Number(option('--max-files') ?? Infinity);
const show = Number(option('--show') ?? 0);
const threads = Number(option('--threads') ?? 2);
const cleanup: string[] = [];

function defaults(): Corpus[] {
  const out: Corpus[] = [];
  try {
    const goroot = execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim();
    // testdata holds deliberately broken files (the parser's and vet's error tests): not valid code.
    out.push({ name: 'go-stdlib', dir: join(goroot, 'src'), keep: (p) => !p.includes('testdata/') });
  } catch {
    // no Go on this machine
  }
  try {
    const lib = execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], {
      encoding: 'utf8',
    }).trim();
    // lib2to3's and test's data files are Python 2 or deliberately invalid.
    const bad = /(^|\/)(site-packages|lib2to3\/tests\/data|test\/bad|test\/badsyntax|test\/tokenizedata)/;
    out.push({ name: 'cpython-lib', dir: lib, keep: (p) => !bad.test(p) && !/badsyntax/.test(p) });
  } catch {
    // no Python
  }
  const jvms = existsSync('/usr/lib/jvm') ? readdirSync('/usr/lib/jvm').sort() : [];
  for (const zip of jvms.map((j) => `/usr/lib/jvm/${j}/lib/src.zip`)) {
    if (!existsSync(zip)) continue;
    const dir = mkdtempSync(join(tmpdir(), 'ckg-jdk-'));
    cleanup.push(dir);
    execFileSync('unzip', ['-q', zip, 'java.base/*', '-d', dir]);
    out.push({ name: 'jdk-java.base', dir });
    break;
  }
  if (existsSync('/usr/include')) out.push({ name: 'usr-include', dir: '/usr/include' });
  const nm = resolve(import.meta.dirname, '../node_modules');
  if (existsSync(nm)) out.push({ name: 'node_modules', dir: nm });
  return out;
}

const corpora: Corpus[] = [];
for (const arg of process.argv.slice(2)) {
  const eq = arg.indexOf('=');
  if (eq > 0 && !arg.startsWith('--')) corpora.push({ name: arg.slice(0, eq), dir: resolve(arg.slice(eq + 1)) });
}
const only = option('--only')?.split(',');
if (process.argv.includes('--defaults')) corpora.push(...defaults().filter((c) => !only || only.includes(c.name)));
if (corpora.length === 0) {
  console.error('usage: syntax-errors.ts [name=dir ...] [--defaults] [--max-files N] [--show N] [--threads N]');
  process.exit(2);
}

function extension(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  return dot > slash ? path.slice(dot) : '';
}

/** At most `n` items, evenly spread over the list. */
function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(items[Math.floor((i * items.length) / n)]!);
  return out;
}

const engine = createEngine({ threads });
const rows: string[][] = [['corpus', 'language', 'files', 'syntax_error', 'share']];
const failing: string[] = [];
const started = performance.now();
const load = loadavg()[0]!.toFixed(2);
try {
  for (const corpus of corpora) {
    const tree = engine.openTree(corpus.dir);
    const byLanguage = new Map<string, DiscoveredFile[]>();
    for (const f of tree.files) {
      if (corpus.keep && !corpus.keep(f.path)) continue;
      const plugin = pluginForExtension(extension(f.path));
      if (!plugin) continue;
      let list = byLanguage.get(plugin.id);
      if (!list) byLanguage.set(plugin.id, (list = []));
      list.push(f);
    }
    const chosen = [...byLanguage.values()].flatMap((l) => spread(l, maxFiles));
    const files = new Map<string, number>();
    const errors = new Map<string, Array<{ path: string; line: unknown }>>();
    for await (const a of engine.analyzeFiles(tree, chosen, { threads })) {
      // The extension picked the file; classification may still call it something else (a .h that looks like C++).
      const language = a.language || 'none';
      files.set(language, (files.get(language) ?? 0) + 1);
      const issue = a.issues.find((i) => i.code === 'syntax_error');
      if (!issue) continue;
      let list = errors.get(language);
      if (!list) errors.set(language, (list = []));
      list.push({ path: a.file_path, line: issue.context?.line });
    }
    for (const language of [...files.keys()].sort()) {
      const n = files.get(language)!;
      const bad = errors.get(language) ?? [];
      rows.push([corpus.name, language, String(n), String(bad.length), `${((100 * bad.length) / n).toFixed(2)} %`]);
      for (const b of bad.sort((x, y) => x.path.localeCompare(y.path)).slice(0, show))
        failing.push(`${corpus.name} ${language} ${b.path}:${String(b.line)}`);
    }
  }
} finally {
  await engine.close();
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
}

const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows) console.log(r.map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  '));
if (failing.length > 0) console.log(`\nfirst failing files:\n${failing.join('\n')}`);
console.log(
  `\n${((performance.now() - started) / 1000).toFixed(1)} s, ${threads} threads, load ${load} at start, ${loadavg()[0]!.toFixed(2)} at end`,
);
