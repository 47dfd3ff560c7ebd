import type { CaptureView } from '../../languages/plugin.ts';
import { readImport } from '../../languages/bash.ts';
import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';

/** `source f` / `. f` brings every function of f: a star import, spec and kind as engine/languages/bash.ts reads. */
function readImportBindings(captures: CaptureView[]): ImportBindingFact[] {
  return readImport(captures).map((r) => ({
    local: null,
    imported: '*',
    spec: r.spec,
    ...(r.kind !== undefined ? { spec_kind: r.kind } : {}),
    line: r.line,
  }));
}

export const bashSymbols: SymbolLanguage = {
  id: 'bash',
  queryFiles: () => ['bash.scm'],
  selfNames: [],
  bareMembers: false,
  overloads: false,
  packageScope: false,
  constructorName: null,
  constructionTarget: 'class',
  instanceParam: false,
  // Shell builtins and the usual commands: calls of them are external.
  builtins: new Set(
    'echo printf read cd pwd exit return local export declare typeset readonly unset shift set test [ [[ true false source . eval exec trap wait kill sleep command type hash getopts let alias break continue mkdir rm cp mv ls cat grep sed awk find xargs sort uniq head tail tr cut wc tee touch chmod chown ln date basename dirname git make curl wget tar env mktemp sudo'.split(
      ' ',
    ),
  ),
  commonMembers: new Set(),
  cleanType: () => [],
  arity: () => null,
  readImportBindings,
};
