import type { CaptureView } from '../../languages/plugin.ts';
import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, stripGenerics } from '../plugin.ts';
import { cap } from './common.ts';

/** `import M` opens module M (spec as engine/languages/swift.ts reads it). */
function readImportBindings(captures: CaptureView[]): ImportBindingFact[] {
  const source = cap(captures, 'import.source');
  if (!source) return [];
  return [{ local: null, imported: '*', spec: source.text.trim(), line: source.row + 1 }];
}

/** `[Foo]`, `Foo?`, `Foo!`, `any Foo`, `some Foo`, `Foo<T>` give Foo; tuples and functions give nothing. */
function cleanType(text: string): string[] {
  let t = stripGenerics(text.replace(/\b(any|some|inout)\s+/g, '')).replace(/@\w+/g, '');
  while (t.endsWith('?') || t.endsWith('!')) t = t.slice(0, -1);
  if (t.startsWith('[') && t.endsWith(']') && !t.includes(':')) t = t.slice(1, -1);
  if (t.startsWith('(') || t.includes('->')) return [];
  return isTypeName(t) ? [t] : [];
}

export const swiftSymbols: SymbolLanguage = {
  id: 'swift',
  queryFiles: () => ['swift.scm'],
  selfNames: ['self', 'Self'],
  bareMembers: true,
  overloads: false,
  // A SwiftPM module is a folder of files sharing their names: the repository is taken as one module.
  packageScope: true,
  packageByName: true,
  openClasses: true,
  implementsByTargetKind: true,
  constructorName: 'init',
  constructionTarget: 'constructor',
  instanceParam: false,
  builtins: new Set(
    'print debugPrint fatalError precondition assert min max abs zip stride String Int Double Float Bool Array Dictionary Set Optional Character'.split(
      ' ',
    ),
  ),
  commonMembers: new Set(
    'map flatMap compactMap filter reduce forEach first last count isEmpty contains append insert remove sorted joined description'.split(
      ' ',
    ),
  ),
  cleanType,
  arity: () => null,
  readImportBindings,
};
