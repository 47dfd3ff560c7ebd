import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { requireGrammar } from './load.ts';
import { filesEndingWith } from '../resolve/repo-index.ts';
import { firstExisting, shortest } from '../resolve/common.ts';
import { dirname, join } from '../resolve/paths.ts';

/** A plain string literal's value; null for interpolation or anything that is not a single literal. */
function literal(text: string): string | null {
  const m = /^(?:'([^'\\]*)'|"([^"\\#]*)")$/.exec(text.trim());
  return m ? (m[1] ?? m[2] ?? null) : null;
}

const DIR = String.raw`(?:__dir__|File\.dirname\(\s*__FILE__\s*\)|File\.expand_path\(\s*File\.dirname\(\s*__FILE__\s*\)\s*\))`;
const STR = String.raw`(?:'([^'\\]*)'|"([^"\\#]*)")`;
/** File.expand_path('x', __dir__) and File.expand_path('../x', __FILE__) (relative to the file itself). */
const EXPAND = new RegExp(String.raw`^File\.expand_path\(\s*${STR}\s*,\s*(${DIR}|__FILE__)\s*\)$`);
/** File.join(__dir__, 'a', 'b') */
const JOIN = new RegExp(String.raw`^File\.join\(\s*${DIR}\s*((?:,\s*${STR}\s*)+)\)$`);
/** File.dirname(__FILE__) + '/x', "#{__dir__}/x" */
const CONCAT = new RegExp(String.raw`^${DIR}\s*\+\s*${STR}$`);
const INTERP = /^"#\{(?:__dir__|File\.dirname\(__FILE__\))\}\/([^"\\#]*)"$/;

/**
 * `require 'x'`, `load 'x.rb'`, `autoload :X, 'x'` (kind 'require' or 'load'); `require_relative 'x'` and the
 * file-relative spellings (`File.expand_path('x', __dir__)`, `File.join(__dir__, 'x')`, `File.dirname(__FILE__) +
 * '/x'`) as kind 'require_relative', a path from the file's directory. Other computed paths are not imports.
 */
function readImport(captures: CaptureView[]): ImportRef[] {
  const kindText = captures.find((c) => c.name === 'import.kind')?.text ?? 'require';
  const arg = captures.find((c) => c.name === 'import.arg');
  if (!arg) return [];
  const line = arg.row + 1;
  const text = arg.text.trim();
  const kind = kindText === 'autoload' ? 'require' : kindText;
  const plain = literal(text);
  if (plain !== null) return plain === '' ? [] : [{ spec: plain, line, kind }];
  const relative = (spec: string): ImportRef[] => [{ spec, line, kind: 'require_relative' }];
  const expand = EXPAND.exec(text);
  if (expand) {
    const rel = expand[1] ?? expand[2] ?? '';
    // Relative to __FILE__ means relative to the file path itself: its first '..' leaves the file.
    if (expand[3] === '__FILE__') return rel.startsWith('../') ? relative(rel.slice(3)) : [];
    return relative(rel);
  }
  const joined = JOIN.exec(text);
  if (joined) {
    const parts = [...joined[1]!.matchAll(new RegExp(STR, 'g'))].map((m) => m[1] ?? m[2] ?? '');
    return relative(parts.join('/'));
  }
  const concat = CONCAT.exec(text);
  if (concat) return relative((concat[1] ?? concat[2] ?? '').replace(/^\//, ''));
  const interp = INTERP.exec(text);
  if (interp) return relative(interp[1]!);
  return [];
}

const withRb = (p: string): string => (p.endsWith('.rb') ? p : `${p}.rb`);

/** Ruby: require_relative from the file's directory; require from lib/ or the root, else as a path suffix. */
function resolve(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  if (ref.kind === 'require_relative') {
    const p = join(dirname(from), ref.spec);
    return p === null ? [] : firstExisting(repo, [withRb(p), p]);
  }
  const spec = withRb(ref.spec.replace(/^\.\//, ''));
  const direct = firstExisting(repo, [`lib/${spec}`, spec, join(dirname(from), spec)]);
  if (direct.length > 0) return direct;
  const hits = filesEndingWith(repo, `lib/${spec}`);
  return hits.length > 0 ? [shortest(hits)] : [];
}

export const ruby: LanguagePlugin = {
  id: 'ruby',
  extensions: ['.rb', '.rake', '.gemspec'],
  interpreters: ['ruby'],
  queryFile: 'ruby.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-ruby')),
  readImport,
  resolve,
};
