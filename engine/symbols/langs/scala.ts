import type { CaptureView } from '../../languages/plugin.ts';
import { readImport } from '../../languages/scala.ts';
import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, splitTopLevel } from '../plugin.ts';

/**
 * `import a.b.C` binds C, `import a.b.{C, D => E}` binds C and E, `import a.b._` opens package (or object) a.b.
 * Specs and kinds are engine/languages/scala.ts's.
 */
function readImportBindings(captures: CaptureView[]): ImportBindingFact[] {
  const whole = captures.find((c) => c.name === 'import.source')?.text ?? '';
  const renames = new Map<string, string>();
  for (const m of whole.matchAll(/(\w+)\s*(?:=>|\bas\b)\s*(\w+)/g)) renames.set(m[1]!, m[2]!);
  return readImport(captures).map((r): ImportBindingFact => {
    if (r.kind === 'wildcard') return { local: null, imported: '*', spec: r.spec, spec_kind: 'wildcard', line: r.line };
    const last = r.spec.slice(r.spec.lastIndexOf('.') + 1);
    return { local: renames.get(last) ?? last, imported: last, spec: r.spec, line: r.line };
  });
}

/** Square-bracket generics stripped: `List[Foo]` gives List; `a.b.Foo` stays; function types give nothing. */
function cleanType(text: string): string[] {
  let out = '';
  let depth = 0;
  for (const c of text) {
    if (c === '[') depth++;
    else if (c === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0 && !/\s/.test(c)) out += c;
  }
  if (out.includes('=>') || out.startsWith('(')) return [];
  return isTypeName(out) ? [out] : [];
}

function paramTypes(params: string): string[] {
  return splitTopLevel(params).map((p) => {
    const colon = p.indexOf(':');
    return (colon === -1 ? p : p.slice(colon + 1)).replace(/=.*$/s, '').replace(/\s+/g, '');
  });
}

function arity(params: string): number | null {
  const parts = splitTopLevel(params);
  return parts.some((p) => p.includes('*') || p.includes('=')) ? null : parts.length;
}

export const scalaSymbols: SymbolLanguage = {
  id: 'scala',
  queryFiles: () => ['scala.scm'],
  selfNames: ['this'],
  bareMembers: true,
  overloads: true,
  packageScope: true,
  packageByName: true,
  namespaceQualifiers: true,
  implementsByTargetKind: true,
  companionObjects: true,
  constructorName: null,
  constructionTarget: 'class',
  instanceParam: false,
  builtins: new Set(
    'println print require assert List Seq Map Set Vector Option Some None Array Right Left'.split(' '),
  ),
  commonMembers: new Set(
    'map flatMap filter foreach fold foldLeft reduce head tail size length isEmpty nonEmpty get getOrElse toList toSeq toMap mkString contains apply equals hashCode toString'.split(
      ' ',
    ),
  ),
  cleanType,
  paramTypes,
  arity,
  readImportBindings,
};
