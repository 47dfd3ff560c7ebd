import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import { hasModifierBeforeName } from './plugin.ts';
import { requireGrammar } from './load.ts';
import { resolveQualified } from '../resolve/common.ts';

/** `import a.b.C`, `import a.b._` / `a.b.*` (wildcard), `import a.b.{C, D => E}` (one import per selector). */
export function readImport(captures: CaptureView[]): ImportRef[] {
  const source = captures.find((c) => c.name === 'import.source');
  if (!source) return [];
  const line = source.row + 1;
  const out: ImportRef[] = [];
  for (const clause of source.text.replace(/^\s*import\s+/, '').split(/,(?![^{]*\})/)) {
    const t = clause.replace(/\s+/g, '');
    const brace = t.indexOf('{');
    if (brace !== -1) {
      const prefix = t.slice(0, brace).replace(/\.$/, '');
      for (const sel of t.slice(brace + 1, t.lastIndexOf('}')).split(',')) {
        const name = sel.split(/=>|\bas\b/)[0] ?? '';
        if (name === '_' || name === '*') out.push({ spec: prefix, line, kind: 'wildcard' });
        else if (name) out.push({ spec: `${prefix}.${name}`, line });
      }
    } else if (/\.(_|\*)$/.test(t)) out.push({ spec: t.slice(0, -2), line, kind: 'wildcard' });
    else if (t) out.push({ spec: t, line });
  }
  return out;
}

export const scala: LanguagePlugin = {
  id: 'scala',
  extensions: ['.scala', '.sc'],
  queryFile: 'scala.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-scala')),
  readImport,
  isExported: (def) => !hasModifierBeforeName(def, ['private']),
  resolve: (ref, _from, repo) => resolveQualified(repo, ref.spec, ['.scala', '.sc'], ref.kind === 'wildcard', true),
};
