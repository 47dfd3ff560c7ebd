import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { requireGrammar } from './load.ts';
import { filesEndingWith } from '../resolve/repo-index.ts';
import { firstExisting, shortest } from '../resolve/common.ts';
import { dirname, join } from '../resolve/paths.ts';

function readImport(captures: CaptureView[]): ImportRef[] {
  const kind = captures.find((c) => c.name === 'import.kind')?.text ?? 'require';
  return captures.filter((c) => c.name === 'import.source').map((c) => ({ spec: c.text, line: c.row + 1, kind }));
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
