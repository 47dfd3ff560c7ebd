import type { CaptureView } from '../../languages/plugin.ts';
import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, splitTopLevel, stripGenerics } from '../plugin.ts';
import { cap } from './common.ts';

/**
 * `import a.b.C` binds C (a class of file C.kt, or a top-level function or object of the package a.b);
 * `import a.b.C as D` binds D; `import a.b.*` (kind 'wildcard') opens package a.b. The spec is the ImportRef's
 * (engine/languages/kotlin.ts): the qualified name without the alias.
 */
function readImportBindings(captures: CaptureView[]): ImportBindingFact[] {
  const source = cap(captures, 'import.source');
  if (!source) return [];
  const whole = (cap(captures, 'import')?.text ?? '').replace(/\s+as\s+\w+\s*$/, '');
  const spec = source.text.replace(/\s+/g, '');
  const line = source.row + 1;
  if (/\.\s*\*\s*$/.test(whole)) return [{ local: null, imported: '*', spec, spec_kind: 'wildcard', line }];
  const alias = /\s+as\s+(\w+)\s*$/.exec(cap(captures, 'import')?.text ?? '')?.[1];
  const last = spec.slice(spec.lastIndexOf('.') + 1);
  return [{ local: alias ?? last, imported: last, spec, line }];
}

/** `List<Foo>` gives List; `Foo?` Foo; `a.b.Foo` stays qualified; function types give nothing. */
function cleanType(text: string): string[] {
  let t = stripGenerics(text).replace(/@\w+(\([^)]*\))?/g, '');
  while (t.endsWith('?') || t.endsWith('!')) t = t.slice(0, -1);
  if (t.startsWith('(') || t.includes('->')) return [];
  return isTypeName(t) ? [t] : [];
}

/** `(a: Int, b: List<String> = x, vararg c: String)` -> ['Int', 'List<String>', 'String']. */
function paramTypes(params: string): string[] {
  return splitTopLevel(params).map((p) => {
    const colon = p.indexOf(':');
    return (colon === -1 ? p : p.slice(colon + 1)).replace(/=.*$/s, '').replace(/\s+/g, '');
  });
}

function arity(params: string): number | null {
  const parts = splitTopLevel(params);
  return parts.some((p) => /\bvararg\b/.test(p) || p.includes('=')) ? null : parts.length;
}

export const kotlinSymbols: SymbolLanguage = {
  id: 'kotlin',
  queryFiles: () => ['kotlin.scm'],
  selfNames: ['this'],
  bareMembers: true,
  overloads: true,
  packageScope: true,
  packageByName: true,
  namespaceQualifiers: true,
  implementsByTargetKind: true,
  constructorName: null,
  constructionTarget: 'class',
  instanceParam: false,
  builtins: new Set(
    'println print listOf mutableListOf setOf mutableSetOf mapOf mutableMapOf arrayOf emptyList emptyMap emptySet require check error TODO lazy repeat run let apply also with takeIf maxOf minOf requireNotNull checkNotNull'.split(
      ' ',
    ),
  ),
  commonMembers: new Set(
    'equals hashCode toString get set add put remove size isEmpty contains iterator map filter forEach first last let apply also run use close append length substring toList toMap joinToString'.split(
      ' ',
    ),
  ),
  cleanType,
  paramTypes,
  arity,
  readImportBindings,
};
