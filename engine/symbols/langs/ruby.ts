import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, splitTopLevel } from '../plugin.ts';

/** Ruby's `require` binds no names: constants are global once loaded. */
function readImportBindings(): ImportBindingFact[] {
  return [];
}

/** A constant path as written: `A::B` gives A.B. */
function cleanType(text: string): string[] {
  const t = text.trim().replace(/^::/, '').replace(/::/g, '.');
  return isTypeName(t) ? [t] : [];
}

/** `A::B` -> `A.B`, `@x` -> `this.x`, `self` -> `this`, `&.` -> `.`. */
function normalizeReceiver(text: string): string {
  let t = text.trim().replace(/^::/, '');
  if (t === 'self') return 'this';
  t = t.replace(/^self\./, 'this.').replace(/^@@?/, 'this.');
  return t.replace(/::/g, '.').replace(/&\./g, '.');
}

function arity(params: string): number | null {
  const parts = splitTopLevel(params);
  return parts.some((p) => /^[*&]|=|:/.test(p)) ? null : parts.length;
}

export const rubySymbols: SymbolLanguage = {
  id: 'ruby',
  queryFiles: () => ['ruby.scm'],
  selfNames: ['this'],
  bareMembers: true,
  overloads: false,
  // Constants are global: one package of every file (nested modules are the containers).
  packageScope: true,
  packageByName: true,
  openClasses: true,
  constructorName: 'initialize',
  constructionTarget: 'constructor',
  instanceParam: false,
  normalizeReceiver,
  normalizeName: (name) => name.replace(/^@@?/, ''),
  builtins: new Set(
    'puts print p pp require require_relative raise format sprintf lambda proc loop attr_reader attr_writer attr_accessor include extend prepend private protected public module_function block_given? catch throw sleep rand Integer Float String Array Hash'.split(
      ' ',
    ),
  ),
  commonMembers: new Set(
    'each map select reject reduce inject to_s to_i to_a to_h size length first last empty? nil? include? push pop call new join split strip upcase downcase merge keys values fetch dup freeze tap then'.split(
      ' ',
    ),
  ),
  cleanType,
  arity,
  readImportBindings,
};
