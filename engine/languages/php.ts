import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { requireGrammar } from './load.ts';
import { phpInclude } from './php-include.ts';
import { resolvePhpClass, resolvePhpConstant, resolvePhpFunction } from '../resolve/php-classes.ts';
import { firstExisting } from '../resolve/common.ts';
import { dirname, join } from '../resolve/paths.ts';

/**
 * Import kinds: 'use' (a class, interface, trait or enum named by a `use` statement), 'use_function', 'use_const',
 * 'name' (a class or function written with a namespace path in code: `\A\B`, `Alias\B`, `Sub\B`, `namespace\B`),
 * 'include' / 'include_dir' (a path, relative to the working directory or to the file's directory). While the
 * file's matches are read, three more kinds carry context to finishImports, which drops them: 'namespace' (a
 * namespace declaration), 'alias' (`alias=Qualified\Name` of a `use` statement) and 'use_end' (the lines of a `use`
 * statement, whose names are not references of their own).
 */
function readImport(captures: CaptureView[]): ImportRef[] {
  const out: ImportRef[] = [];
  for (const c of captures) {
    const line = c.row + 1;
    if (c.name === 'import.namespace') out.push({ spec: c.text.replace(/\s+/g, ''), line, kind: 'namespace' });
    else if (c.name === 'import.use') out.push(...readUse(c.text, line));
    else if (c.name === 'import.name') out.push({ spec: c.text.replace(/\s+/g, ''), line, kind: 'name' });
    else if (c.name === 'import.path') {
      const ref = phpInclude(c.text);
      if (ref !== null) out.push({ ...ref, line });
    }
  }
  return out;
}

const USE_ITEM =
  /^(?:(function|const)\s+)?\\?([A-Za-z_\x80-\uffff][\w\x80-\uffff\\]*)(?:\s+as\s+([A-Za-z_\x80-\uffff][\w\x80-\uffff]*))?$/i;

/** `use [function|const] A\B [as C], D;` and the group form `use A\{B, C\D as E, function f};`. */
export function readUse(text: string, line: number): ImportRef[] {
  const clean = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(?:\/\/|#)[^\n]*/g, ' ');
  const m = /^\s*use\s+(?:(function|const)\s+)?([\s\S]*?)\s*;?\s*$/i.exec(clean);
  if (!m) return [];
  const declType = m[1]?.toLowerCase();
  let body = m[2]!;
  let prefix = '';
  const brace = body.indexOf('{');
  if (brace !== -1) {
    prefix = body.slice(0, brace).replace(/\s+/g, '').replace(/^\\/, '').replace(/\\$/, '');
    body = body.slice(brace + 1, body.lastIndexOf('}') === -1 ? undefined : body.lastIndexOf('}'));
  }
  const out: ImportRef[] = [];
  for (const raw of body.split(',')) {
    const item = USE_ITEM.exec(raw.trim().replace(/\s*\\\s*/g, '\\'));
    if (!item) continue;
    const type = item[1]?.toLowerCase() ?? declType;
    const name = prefix === '' ? item[2]! : `${prefix}\\${item[2]!}`;
    const kind = type === 'function' ? 'use_function' : type === 'const' ? 'use_const' : 'use';
    out.push({ spec: name, line, kind });
    if (kind === 'use') {
      const alias = item[3] ?? name.slice(name.lastIndexOf('\\') + 1);
      out.push({ spec: `${alias}=${name}`, line, kind: 'alias' });
    }
  }
  out.push({ spec: String(line), line: line + (text.match(/\n/g)?.length ?? 0), kind: 'use_end' });
  return out;
}

/**
 * Names in code become fully qualified as PHP resolves them (`\A\B` as written; `Alias\B` through the `use` alias;
 * `Sub\B` and `namespace\B` from the current namespace); each qualified name counts once per file (a name a `use`
 * statement already imports does not count again). A single-segment global name (`\strlen`, `\PHP_EOL`, `\Exception`)
 * counts only when it is spelled like a class (capitalised, not all capitals). Context kinds are dropped.
 */
function finishImports(imports: ImportRef[]): ImportRef[] {
  let ns = '';
  const aliases = new Map<string, string>();
  let useFrom = -1;
  let useTo = -1;
  const seen = new Set<string>();
  const out: ImportRef[] = [];
  for (const r of imports) {
    switch (r.kind) {
      case 'namespace':
        ns = r.spec.replace(/^\\/, '');
        aliases.clear();
        break;
      case 'alias': {
        const eq = r.spec.indexOf('=');
        aliases.set(r.spec.slice(0, eq).toLowerCase(), r.spec.slice(eq + 1));
        break;
      }
      case 'use_end':
        useFrom = Number(r.spec);
        useTo = r.line;
        break;
      case 'name': {
        if (r.line >= useFrom && r.line <= useTo) break;
        const full = qualify(r.spec, ns, aliases);
        if (full === null) break;
        const key = full.toLowerCase();
        if (seen.has(key)) break;
        seen.add(key);
        out.push({ spec: full, line: r.line, kind: 'name' });
        break;
      }
      default:
        if (r.kind === 'use') seen.add(r.spec.toLowerCase());
        out.push(r);
    }
  }
  return out;
}

function qualify(spec: string, ns: string, aliases: ReadonlyMap<string, string>): string | null {
  let full: string;
  if (spec.startsWith('\\')) full = spec.slice(1);
  else if (/^namespace\\/i.test(spec)) full = ns === '' ? spec.slice(10) : `${ns}\\${spec.slice(10)}`;
  else {
    const first = spec.slice(0, spec.indexOf('\\') === -1 ? undefined : spec.indexOf('\\'));
    const alias = aliases.get(first.toLowerCase());
    full = alias !== undefined ? alias + spec.slice(first.length) : ns === '' ? spec : `${ns}\\${spec}`;
  }
  if (full.includes('\\')) return full;
  return /^[A-Z]/.test(full) && /[a-z]/.test(full) ? full : null;
}

function resolve(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  switch (ref.kind) {
    case 'include_dir': {
      const p = join(dirname(from), ref.spec);
      return p === null ? [] : firstExisting(repo, [p]);
    }
    case 'include':
      if (ref.spec.startsWith('/')) return [];
      return firstExisting(repo, [join(dirname(from), ref.spec), join('', ref.spec)]);
    case 'use_function':
      return resolvePhpFunction(ref.spec, repo);
    case 'use_const':
      return resolvePhpConstant(ref.spec, repo);
    case 'name': {
      const cls = resolvePhpClass(ref.spec, from, repo);
      if (cls.length > 0) return cls;
      const fn = resolvePhpFunction(ref.spec, repo);
      return fn.length > 0 ? fn : resolvePhpConstant(ref.spec, repo);
    }
    default:
      return resolvePhpClass(ref.spec, from, repo);
  }
}

export const php: LanguagePlugin = {
  id: 'php',
  extensions: ['.php', '.phtml', '.php5', '.php7', '.phps'],
  interpreters: ['php'],
  queryFile: 'php.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-php', 'php')),
  readImport,
  finishImports,
  resolve,
};
