import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { requireGrammar } from './load.ts';
import { basename, dirname, stem } from '../resolve/paths.ts';

/** `use a::b::{c, d}` gives a::b::c and a::b::d; `mod x;` gives x (kind 'mod'); `extern crate x` gives x. */
function readImport(captures: CaptureView[]): ImportRef[] {
  const out: ImportRef[] = [];
  for (const c of captures) {
    const line = c.row + 1;
    if (c.name === 'import.mod') out.push({ spec: c.text, line, kind: 'mod' });
    else if (c.name === 'import.crate') out.push({ spec: c.text, line });
    else if (c.name === 'import.use') for (const spec of expandUse(c.text)) out.push({ spec, line });
  }
  return out;
}

/** Expands one level of braces; aliases (`as x`) and globs are dropped from the path. */
function expandUse(text: string): string[] {
  const t = text.replace(/\s+/g, '');
  const brace = t.indexOf('{');
  if (brace === -1) return [t.replace(/as\w+$/, '').replace(/::\*$/, '')];
  const prefix = t.slice(0, brace);
  const inner = t.slice(brace + 1, t.lastIndexOf('}'));
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of inner) {
    if (ch === '{') depth++;
    if (ch === '}') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur) parts.push(cur);
  return parts.map((p) =>
    p === 'self'
      ? prefix.replace(/::$/, '')
      : prefix +
        p
          .replace(/\{.*$/, '')
          .replace(/as\w+$/, '')
          .replace(/::\*?$/, ''),
  );
}

/** The directory holding the submodules of the module `file` defines. */
function moduleDir(file: string): string {
  const b = basename(file);
  if (b === 'mod.rs' || b === 'lib.rs' || b === 'main.rs') return dirname(file);
  const d = dirname(file);
  return d === '' ? stem(file) : `${d}/${stem(file)}`;
}

function crateRoot(repo: RepoIndex, file: string): string {
  for (let d = dirname(file); ; d = dirname(d)) {
    if (repo.files.has(`${d}/lib.rs`.replace(/^\//, '')) || repo.files.has(`${d}/main.rs`.replace(/^\//, ''))) return d;
    if (d === '') return dirname(file);
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

function rootFile(repo: RepoIndex, dir: string): string | null {
  const prefix = dir === '' ? '' : dir + '/';
  if (repo.files.has(`${prefix}lib.rs`)) return `${prefix}lib.rs`;
  if (repo.files.has(`${prefix}main.rs`)) return `${prefix}main.rs`;
  return null;
}

/** Rust: `mod x;` is a file next to the module; `crate::`, `self::`, `super::` and workspace crates by path. */
function resolve(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  if (ref.kind === 'mod') {
    const hit = moduleFile(repo, moduleDir(from), [ref.spec]);
    return hit === null ? [] : [hit];
  }
  const segs = ref.spec.split('::').filter((s) => s.length > 0);
  let dir: string;
  const head = segs[0];
  if (head === 'crate') dir = crateRoot(repo, from);
  else if (head === 'self') dir = moduleDir(from);
  else if (head === 'super') {
    dir = moduleDir(from);
    while (segs[0] === 'super') {
      dir = dirname(dir);
      segs.shift();
    }
    segs.unshift('super');
  } else if (head !== undefined && repo.crates.has(head)) dir = repo.crates.get(head)!;
  else return [];
  const rest = segs.slice(1);
  const hit =
    moduleFile(repo, dir, rest) ?? (head === 'crate' || repo.crates.has(head ?? '') ? rootFile(repo, dir) : null);
  if (hit !== null && hit !== from) return [hit];
  return [];
}

export const rust: LanguagePlugin = {
  id: 'rust',
  extensions: ['.rs'],
  queryFile: 'rust.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-rust')),
  readImport,
  resolve,
};
