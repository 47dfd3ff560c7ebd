import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { requireGrammar } from './load.ts';
import { firstExisting } from '../resolve/common.ts';
import { dirname, join } from '../resolve/paths.ts';
import { unquote } from './plugin.ts';

/**
 * `source x` / `. x`. A leading `$(dirname "$0")`, `${BASH_SOURCE%/*}`-style directory expression is read as the
 * script's own directory (kind 'dir'); any other variable makes the import unresolvable (still counted).
 */
export function readImport(captures: CaptureView[]): ImportRef[] {
  const out: ImportRef[] = [];
  for (const c of captures) {
    if (c.name !== 'import.source') continue;
    let spec = unquote(c.text);
    let kind: string | undefined;
    const dirExpr =
      /^"?\$(\(\s*dirname\b[^)]*\)|\{?BASH_SOURCE[^}/]*\}?|\{?0%\/\*\}?|\{?(SCRIPT_?DIR|DIR|HERE|ROOT)\}?)"?\//i.exec(
        spec,
      );
    if (dirExpr) {
      spec = spec.slice(dirExpr[0].length);
      kind = 'dir';
    }
    spec = spec.replace(/"/g, '');
    out.push({ spec, line: c.row + 1, ...(kind ? { kind } : {}) });
  }
  return out;
}

function resolve(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  if (ref.spec.includes('$') || ref.spec.startsWith('/') || ref.spec.startsWith('~')) return [];
  const local = join(dirname(from), ref.spec);
  return firstExisting(repo, ref.kind === 'dir' ? [local] : [local, join('', ref.spec)]);
}

export const bash: LanguagePlugin = {
  id: 'bash',
  extensions: ['.sh', '.bash', '.zsh', '.ksh', '.bats'],
  interpreters: ['sh', 'bash', 'zsh', 'ksh', 'dash'],
  queryFile: 'bash.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-bash')),
  readImport,
  resolve,
};
