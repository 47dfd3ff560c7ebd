import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { requireGrammar } from './load.ts';
import { basename, dirname, join, stem } from '../resolve/paths.ts';
import { expandUse } from './rust-use.ts';

/**
 * `use a::{b::{c, d}}` gives a::b::c and a::b::d; `mod x;` gives x (kind 'mod'); `extern crate x` gives x (kind
 * 'crate'; `extern crate x as y` is kept as 'x=y', kind 'crate_alias', until finishImports reads it).
 */
function readImport(captures: CaptureView[]): ImportRef[] {
  const out: ImportRef[] = [];
  const alias = captures.find((c) => c.name === 'import.alias');
  for (const c of captures) {
    const line = c.row + 1;
    if (c.name === 'import.mod') out.push({ spec: c.text, line, kind: 'mod' });
    else if (c.name === 'import.crate')
      out.push(
        alias ? { spec: `${c.text}=${alias.text}`, line, kind: 'crate_alias' } : { spec: c.text, line, kind: 'crate' },
      );
    else if (c.name === 'import.use') for (const spec of expandUse(c.text)) out.push({ spec, line });
    else if (c.name === 'import.inline_mod')
      out.push({ spec: '', line, kind: `inline_mod:${(c.endRow ?? c.row) + 1}` });
  }
  return out;
}

/**
 * Uses inside inline modules (`mod tests { use super::*; }`): the query gives each inline module's body rows as an
 * `inline_mod:<last line>` marker. In a use nested in d inline modules the first d `super`s stay in this file: the
 * path is rewritten to start at the file's module (`self::…`, which names no other file when all of it stays
 * here). The markers are dropped.
 */
function foldInlineModules(imports: ImportRef[]): ImportRef[] {
  const bodies: Array<[number, number]> = [];
  for (const r of imports) if (r.kind?.startsWith('inline_mod:')) bodies.push([r.line, Number(r.kind.slice(11))]);
  if (bodies.length === 0) return imports;
  const out: ImportRef[] = [];
  for (const r of imports) {
    if (r.kind?.startsWith('inline_mod:')) continue;
    if (r.kind !== undefined || !r.spec.startsWith('super')) {
      out.push(r);
      continue;
    }
    const depth = bodies.filter(([first, last]) => r.line >= first && r.line <= last).length;
    const segs = r.spec.split('::');
    let supers = 0;
    while (segs[supers] === 'super') supers++;
    if (depth === 0) out.push(r);
    else if (supers > depth) out.push({ ...r, spec: segs.slice(depth).join('::') });
    else out.push({ ...r, spec: ['self', ...segs.slice(supers)].join('::') });
  }
  return out;
}

const PATH_ATTR = /#\[\s*path\s*=\s*"([^"]+)"\s*\]/;

/**
 * File-level rewrites: uses inside inline modules folded (foldInlineModules); a `#[path = "…"]` attribute on (or above) a `mod x;` line makes it kind 'mod_path' with
 * that path; `use` paths through an `extern crate x as y` alias are rewritten to x; a `use` whose first segment is a
 * module this file declares (`mod util; use util::X;`, the 2018 uniform paths) is read as `self::…`.
 */
function finishImports(found: ImportRef[], lines: readonly string[]): ImportRef[] {
  const imports = foldInlineModules(found);
  const aliases = new Map<string, string>();
  const localMods = new Set<string>();
  const out = imports.map((ref): ImportRef => {
    if (ref.kind === 'crate_alias') {
      const [name, alias] = ref.spec.split('=') as [string, string];
      aliases.set(alias, name);
      return { spec: name, line: ref.line, kind: 'crate' };
    }
    if (ref.kind !== 'mod') return ref;
    localMods.add(ref.spec);
    for (let i = ref.line - 1; i >= 0; i--) {
      const text = lines[i] ?? '';
      const hit = PATH_ATTR.exec(i === ref.line - 1 ? text.slice(0, text.search(/\bmod\b/)) : text);
      if (hit) return { spec: hit[1]!, line: ref.line, kind: 'mod_path' };
      // Keep walking up only through attributes, doc comments and blank lines.
      if (i !== ref.line - 1 && !/^\s*(#\[.*\]|\/\/.*)?\s*$/.test(text)) break;
    }
    return ref;
  });
  if (aliases.size === 0 && localMods.size === 0) return out;
  return out.map((ref) => {
    if (ref.kind !== undefined) return ref;
    const sep = ref.spec.indexOf('::');
    const head = sep === -1 ? ref.spec : ref.spec.slice(0, sep);
    const tail = sep === -1 ? '' : ref.spec.slice(sep);
    if (aliases.has(head)) return { ...ref, spec: aliases.get(head)! + tail };
    if (localMods.has(head)) return { ...ref, spec: `self::${ref.spec}` };
    return ref;
  });
}

function isRoot(repo: RepoIndex, file: string): boolean {
  if (repo.rustRoots.has(file)) return true;
  const b = basename(file);
  return b === 'lib.rs' || b === 'main.rs';
}

/** The directory holding the submodules of the module `file` defines. */
function moduleDir(repo: RepoIndex, file: string): string {
  if (basename(file) === 'mod.rs' || isRoot(repo, file)) return dirname(file);
  const d = dirname(file);
  return d === '' ? stem(file) : `${d}/${stem(file)}`;
}

/**
 * The root file of the crate holding `file`: itself when it is a crate root, else the nearest enclosing directory's
 * root (lib.rs before main.rs before other targets, e.g. tests/common/mod.rs belongs to a tests/*.rs crate).
 */
function crateRoot(repo: RepoIndex, file: string): string | null {
  if (isRoot(repo, file)) return file;
  for (let d = dirname(file); ; d = dirname(d)) {
    const prefix = d === '' ? '' : `${d}/`;
    const names = repo.dirs.get(d) ?? [];
    const pick =
      names.find((n) => n === 'lib.rs') ??
      names.find((n) => n === 'main.rs') ??
      names.find((n) => repo.rustRoots.has(prefix + n));
    if (pick !== undefined) return prefix + pick;
    if (d === '') return null;
  }
}

function moduleFile(repo: RepoIndex, dir: string, segments: string[]): string | null {
  for (let n = segments.length; n >= 1; n--) {
    const p = [dir, ...segments.slice(0, n)].filter((s) => s !== '').join('/');
    if (repo.files.has(`${p}.rs`)) return `${p}.rs`;
    if (repo.files.has(`${p}/mod.rs`)) return `${p}/mod.rs`;
  }
  return null;
}

/**
 * Rust: `mod x;` is a file next to the module (or the `#[path]` file, from the declaring file's directory);
 * `crate::`, `self::`, `super::` and the workspace's library crates by module path; the longest prefix naming a
 * module file wins, else the crate root.
 */
function resolve(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  if (ref.kind === 'mod') {
    const hit = moduleFile(repo, moduleDir(repo, from), [ref.spec]);
    return hit === null ? [] : [hit];
  }
  if (ref.kind === 'mod_path') {
    const p = join(dirname(from), ref.spec);
    return p !== null && repo.files.has(p) ? [p] : [];
  }
  const segs = ref.spec.split('::').filter((s) => s.length > 0);
  const head = segs[0];
  let dir: string;
  let root: string | null = null;
  if (head === 'crate') {
    root = crateRoot(repo, from);
    dir = root === null ? dirname(from) : dirname(root);
  } else if (head === 'self') dir = moduleDir(repo, from);
  else if (head === 'super') {
    // Each `super` climbs one module: from the directory holding this module's submodules to its parent's.
    dir = moduleDir(repo, from);
    while (segs[0] === 'super') {
      dir = dirname(dir);
      segs.shift();
    }
    segs.unshift('super');
    // An item of the module reached (`use super::Item`) is in that module's own file.
    root = moduleOwning(repo, from, dir);
  } else if (head !== undefined && repo.crates.has(head)) {
    // A facade crate's re-exported crates (`pub extern crate grep_printer as printer;`): grep::printer::X is
    // grep_printer::X (followed through facades of facades, a few levels at most).
    let crate = head;
    for (let hops = 0; hops < 4; hops++) {
      const target = segs[1] === undefined ? undefined : repo.crateAliases.get(crate)?.get(segs[1]);
      if (target === undefined) break;
      crate = target;
      segs.splice(0, 2, target);
    }
    root = repo.crates.get(crate)!;
    dir = dirname(root);
  } else return [];
  const hit = moduleFile(repo, dir, segs.slice(1)) ?? root;
  return hit !== null && hit !== from ? [hit] : [];
}

/**
 * The file of the module whose submodules live in `dir`, seen from `from` (a file of the same crate): the crate root
 * when `dir` is the root's directory, else `dir.rs` or `dir/mod.rs`.
 */
function moduleOwning(repo: RepoIndex, from: string, dir: string): string | null {
  const root = crateRoot(repo, from);
  if (root !== null && dirname(root) === dir) return root;
  if (dir === '') return null;
  if (repo.files.has(`${dir}.rs`)) return `${dir}.rs`;
  if (repo.files.has(`${dir}/mod.rs`)) return `${dir}/mod.rs`;
  return null;
}

export const rust: LanguagePlugin = {
  id: 'rust',
  extensions: ['.rs'],
  queryFile: 'rust.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-rust')),
  readImport,
  finishImports,
  resolve,
};
