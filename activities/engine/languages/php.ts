import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { requireGrammar } from './load.ts';
import { filesEndingWith } from '../resolve/repo-index.ts';
import { firstExisting, shortest } from '../resolve/common.ts';
import { dirname, join } from '../resolve/paths.ts';

/**
 * `use A\B\C;` gives the class name (kind 'use'); include/require give the path: the last string literal of the
 * expression, marked relative to the file when the expression starts with __DIR__ or dirname(__FILE__).
 */
function readImport(captures: CaptureView[]): ImportRef[] {
  const out: ImportRef[] = [];
  for (const c of captures) {
    if (c.name === 'import.use') out.push({ spec: c.text.replace(/^\\/, ''), line: c.row + 1, kind: 'use' });
    if (c.name === 'import.path') {
      const strings = [...c.text.matchAll(/'([^']*)'|"([^"]*)"/g)].map((m) => m[1] ?? m[2] ?? '');
      const last = strings[strings.length - 1];
      if (last === undefined || last.includes('$')) continue;
      const dirRelative = /__DIR__|__FILE__/.test(c.text);
      out.push({ spec: last, line: c.row + 1, kind: dirRelative ? 'include_dir' : 'include' });
    }
  }
  return out;
}

function resolve(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  if (ref.kind === 'include' || ref.kind === 'include_dir') {
    const rel = ref.spec.replace(/^\//, ref.kind === 'include_dir' ? '' : '/');
    if (rel.startsWith('/')) return [];
    return firstExisting(repo, [join(dirname(from), rel), join('', rel)]);
  }
  const cls = ref.spec;
  for (const { prefix, dirs } of repo.psr4) {
    if (!cls.startsWith(prefix)) continue;
    const rest = cls.slice(prefix.length).split('\\').join('/');
    const hit = firstExisting(
      repo,
      dirs.map((d) => join(d, `${rest}.php`)),
    );
    if (hit.length > 0) return hit;
  }
  // Without composer: the class path as a path suffix (at least namespace and class).
  const parts = cls.split('\\');
  for (let i = 0; parts.length - i >= 2; i++) {
    const hits = filesEndingWith(repo, `${parts.slice(i).join('/')}.php`);
    if (hits.length > 0) return [shortest(hits)];
  }
  return [];
}

export const php: LanguagePlugin = {
  id: 'php',
  extensions: ['.php', '.phtml', '.php5', '.php7', '.phps'],
  interpreters: ['php'],
  queryFile: 'php.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-php', 'php')),
  readImport,
  resolve,
};
