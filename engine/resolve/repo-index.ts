import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join as joinFs } from 'node:path';
import { errorText } from '../error-text.ts';
import { basename, dirname, join } from './paths.ts';
import { cargoTargets, crateReexports } from './cargo.ts';
import type { ComposerIndex } from './composer.ts';
import { addComposerJson, emptyComposerIndex, finishComposerIndex } from './composer.ts';

export interface TsConfigInfo {
  /** Directory of the tsconfig/jsconfig file. */
  dir: string;
  /** Repository-relative base for `paths` and bare specifiers; null when baseUrl is not set. */
  baseUrl: string | null;
  paths: Array<{ pattern: string; targets: string[] }>;
  /** `compilerOptions.customConditions`: export conditions TypeScript matches before its own (`@zod/source`). */
  customConditions: string[];
}

/** What import resolution knows about the whole tree: built once per analysis, after discovery. */
export interface RepoIndex {
  files: ReadonlySet<string>;
  /** Directory → names of the files directly in it (sorted). */
  dirs: ReadonlyMap<string, string[]>;
  /** Base name → paths with that base name. */
  byBase: ReadonlyMap<string, string[]>;
  /** Base name → directories with that base name. */
  dirsByBase: ReadonlyMap<string, string[]>;
  /** go.mod files: module path and directory, longest module path first. */
  goModules: Array<{ dir: string; module: string }>;
  tsconfigs: TsConfigInfo[];
  /** composer.json autoload rules of every package of the tree (PSR-4, PSR-0, classmap, files' functions). */
  composer: ComposerIndex;
  /** Cargo library crate name (with '_') → its root file (src/lib.rs or `[lib] path`). */
  crates: ReadonlyMap<string, string>;
  /** Every Cargo crate root file: lib, bins, tests, examples, benches, build scripts, `path =` targets. */
  rustRoots: ReadonlySet<string>;
  /**
   * Library crate name → the crates its root re-exports under a name (`pub extern crate grep_printer as printer;`):
   * alias → crate name, only for crates of the tree. A facade's `grep::printer::X` is `grep_printer::X`.
   */
  crateAliases: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Python (sub-)projects: directories holding pyproject.toml, setup.py or setup.cfg, deepest first. */
  pythonProjects: string[];
  /** package.json files: directory → the entry fields resolution reads. */
  packages: ReadonlyMap<string, PackageJsonInfo>;
  /** package.json `name` → its directory (workspace packages of a monorepo). */
  packageDirs: ReadonlyMap<string, string>;
  /**
   * Every file whose content the index read (go.mod, tsconfig, package.json, composer.json, Cargo.toml, PHP heads):
   * a tree whose other files change only in content keeps this index (Engine.refreshTree).
   */
  configFiles: ReadonlySet<string>;
}

export interface PackageJsonInfo {
  /** `main`, for Node's directory lookup. */
  main: string | null;
  /** `types` or `typings`, which TypeScript reads before `main`. */
  types: string | null;
  /** The `.` entry of `exports` for a TypeScript importer (conditions types, import, require, node, default). */
  exportsTs: string | null;
  /** The `.` entry of `exports` for a JavaScript importer (conditions import, require, node, default). */
  exportsJs: string | null;
  /** The subpath entries of `exports` (`./x`, `./x/*`), their values as written (a path or conditions). */
  subpaths: Array<{ key: string; value: unknown }>;
  /** `exports` as written (for an importer with custom conditions). */
  exports: unknown;
}

/**
 * The path an `exports` value gives under the importer's conditions (TypeScript reads `types` first, after the custom
 * conditions of the importer's tsconfig).
 */
export function exportsEntry(exp: unknown, ts: boolean, custom: readonly string[] = []): string | null {
  if (typeof exp === 'string') return exp;
  if (!isRecord(exp)) return null;
  if ('.' in exp) return exportsEntry(exp['.'], ts, custom);
  const keys = ts
    ? [...custom, 'types', 'import', 'require', 'node', 'default']
    : ['import', 'require', 'node', 'default'];
  for (const key of keys) {
    const hit = exportsEntry(exp[key], ts, custom);
    if (hit !== null) return hit;
  }
  return null;
}

/** Files whose path ends with `suffix` at a '/' boundary (or equal it). */
export function filesEndingWith(repo: RepoIndex, suffix: string): string[] {
  const candidates = repo.byBase.get(basename(suffix)) ?? [];
  return candidates.filter((p) => p === suffix || p.endsWith('/' + suffix));
}

/** Directories whose path ends with `suffix` at a '/' boundary (or equal it). */
export function dirsEndingWith(repo: RepoIndex, suffix: string): string[] {
  const candidates = repo.dirsByBase.get(basename(suffix)) ?? [];
  return candidates.filter((d) => d === suffix || d.endsWith('/' + suffix));
}

/** Strips // and /* comments and trailing commas, so tsconfig-style JSON parses. Strings are respected. */
export function parseLooseJson(text: string): unknown {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
    } else out += c;
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1')) as unknown;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface IndexProblem {
  path: string;
  message: string;
}

/** Bytes of a PHP file read for its namespace declaration (after the opening tag, a license docblock, declare()). */
const PHP_HEAD_BYTES = 8192;

/** The first `bytes` bytes of a file as text; null when it cannot be read. */
function readHead(path: string, bytes: number): string | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The tree's paths by directory and by base name (files and directories), every ancestor directory included. */
function pathIndexes(paths: Iterable<string>) {
  const files = new Set<string>();
  const dirs = new Map<string, string[]>();
  const byBase = new Map<string, string[]>();
  const push = (m: Map<string, string[]>, key: string, value: string) => {
    const list = m.get(key);
    if (list) list.push(value);
    else m.set(key, [value]);
  };
  for (const p of paths) {
    files.add(p);
    push(dirs, dirname(p), basename(p));
    push(byBase, basename(p), p);
  }
  // Every ancestor directory exists too (a directory with only subdirectories is still a directory).
  for (const d of [...dirs.keys()]) {
    for (let a = dirname(d); a !== '' && !dirs.has(a); a = dirname(a)) dirs.set(a, []);
  }
  for (const names of dirs.values()) names.sort();
  const dirsByBase = new Map<string, string[]>();
  for (const d of dirs.keys()) push(dirsByBase, basename(d), d);
  return { files, dirs, byBase, dirsByBase };
}

/** A tsconfig/jsconfig's baseUrl and paths (throws on text that is not JSON with comments). */
function tsconfigInfo(dir: string, text: string): TsConfigInfo {
  const json = parseLooseJson(text);
  const opts = isRecord(json) && isRecord(json.compilerOptions) ? json.compilerOptions : {};
  const baseUrl = typeof opts.baseUrl === 'string' ? join(dir, opts.baseUrl) : null;
  const paths: TsConfigInfo['paths'] = [];
  if (isRecord(opts.paths)) {
    for (const [pattern, targets] of Object.entries(opts.paths)) {
      if (Array.isArray(targets)) paths.push({ pattern, targets: targets.filter((t) => typeof t === 'string') });
    }
  }
  const customConditions = Array.isArray(opts.customConditions)
    ? opts.customConditions.filter((c): c is string => typeof c === 'string')
    : [];
  return { dir, baseUrl, paths, customConditions };
}

const nonEmpty = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** What resolution reads of a package.json: its entry points and export subpaths. */
function packageJsonInfo(json: Record<string, unknown>): PackageJsonInfo {
  return {
    main: nonEmpty(json.main),
    types: nonEmpty(json.types) ?? nonEmpty(json.typings),
    exportsTs: exportsEntry(json.exports, true),
    exportsJs: exportsEntry(json.exports, false),
    exports: json.exports,
    subpaths: isRecord(json.exports)
      ? Object.entries(json.exports)
          .filter(([key]) => key.startsWith('./'))
          .map(([key, value]) => ({ key, value }))
      : [],
  };
}

/** Builds the index from the discovered paths, reading the few configuration files resolution needs. */
export function buildRepoIndex(root: string, paths: Iterable<string>, problems: IndexProblem[] = []): RepoIndex {
  const { files, dirs, byBase, dirsByBase } = pathIndexes(paths);

  const configFiles = new Set<string>();
  const read = (p: string): string | null => {
    configFiles.add(p);
    try {
      return readFileSync(joinFs(root, p), 'utf8');
    } catch (err) {
      problems.push({ path: p, message: errorText(err) });
      return null;
    }
  };
  const goModules: RepoIndex['goModules'] = [];
  const tsconfigs: TsConfigInfo[] = [];
  const composer = emptyComposerIndex();
  const crates = new Map<string, string>();
  const packages = new Map<string, PackageJsonInfo>();
  const packageDirs = new Map<string, string>();
  const pythonProjects = new Set<string>();
  const rustRoots = new Set<string>();
  for (const p of files) {
    const b = basename(p);
    const d = dirname(p);
    if (b === 'pyproject.toml' || b === 'setup.py' || b === 'setup.cfg') pythonProjects.add(d);
    if (b === 'go.mod') {
      const m = /^\s*module\s+("?)([^\s"]+)\1/m.exec(read(p) ?? '');
      if (m) goModules.push({ dir: d, module: m[2]! });
    } else if (/^(tsconfig|jsconfig)(\..*)?\.json$/.test(b) && (b === 'tsconfig.json' || b === 'jsconfig.json')) {
      const text = read(p);
      if (text === null) continue;
      try {
        tsconfigs.push(tsconfigInfo(d, text));
      } catch (err) {
        problems.push({ path: p, message: `unreadable tsconfig: ${errorText(err)}` });
      }
    } else if (b === 'composer.json') {
      const text = read(p);
      if (text === null) continue;
      try {
        addComposerJson(composer, d, JSON.parse(text) as unknown, files, read);
      } catch (err) {
        problems.push({
          path: p,
          message: `unreadable composer.json: ${errorText(err)}`,
        });
      }
    } else if (b === 'package.json') {
      const text = read(p);
      if (text === null) continue;
      try {
        const json = JSON.parse(text) as unknown;
        if (!isRecord(json)) continue;
        packages.set(d, packageJsonInfo(json));
        const name = nonEmpty(json.name);
        // The shallowest package of a name wins (a fixture copy deeper in the tree does not shadow the package).
        if (name !== null && !(packageDirs.has(name) && packageDirs.get(name)!.length <= d.length))
          packageDirs.set(name, d);
      } catch (err) {
        problems.push({
          path: p,
          message: `unreadable package.json: ${errorText(err)}`,
        });
      }
    } else if (b === 'Cargo.toml') {
      const targets = cargoTargets(p, read(p) ?? '', files, (dir) => dirs.get(dir) ?? [], byBase.get('main.rs') ?? []);
      if (targets.lib !== null && !crates.has(targets.lib.name)) crates.set(targets.lib.name, targets.lib.root);
      for (const r of targets.roots) rustRoots.add(r);
    }
  }
  // A library root is read for its re-exported crates (and so counts as a file the index read).
  const crateAliases = new Map<string, Map<string, string>>();
  for (const [name, libRoot] of crates) {
    const aliases = new Map([...crateReexports(read(libRoot) ?? '')].filter(([, target]) => crates.has(target)));
    if (aliases.size > 0) crateAliases.set(name, aliases);
  }
  goModules.sort((a, b) => b.module.length - a.module.length);
  tsconfigs.sort((a, b) => b.dir.length - a.dir.length);
  finishComposerIndex(composer, files, (p) => {
    configFiles.add(p);
    return readHead(joinFs(root, p), PHP_HEAD_BYTES);
  });
  return {
    files,
    dirs,
    byBase,
    dirsByBase,
    goModules,
    tsconfigs,
    composer,
    crates,
    rustRoots,
    crateAliases,
    packages,
    packageDirs,
    pythonProjects: [...pythonProjects].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)),
    configFiles,
  };
}
