import type { CaptureView } from '../../languages/plugin.ts';
import { unquote } from '../../languages/plugin.ts';
import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, splitTopLevel } from '../plugin.ts';
import { cap } from './common.ts';

/** `import "net/http"` binds the target package's name (local null); `import h "net/http"` binds h; `.` binds all. */
function readImportBindings(captures: CaptureView[]): ImportBindingFact[] {
  const source = cap(captures, 'import.source');
  if (!source) return [];
  const spec = unquote(source.text);
  const alias = cap(captures, 'import.alias')?.text;
  if (alias === '_') return [];
  if (alias === '.') return [{ local: null, imported: '*', spec, line: source.row + 1 }];
  return [{ local: alias ?? null, imported: null, spec, line: source.row + 1 }];
}

/**
 * `*T`, `[]T`, `...T`, `pkg.T`, `T[int]` give T (pkg.T); maps, channels, functions and anonymous structs give
 * nothing; a result list `(T, error)` gives its first type.
 */
function cleanType(text: string): string[] {
  let t = text.trim();
  if (t.startsWith('(')) {
    const first = splitTopLevel(t)[0];
    if (first === undefined) return [];
    // `(n int, err error)`: the type follows the name.
    t = first.includes(' ') ? first.slice(first.lastIndexOf(' ') + 1) : first;
  }
  for (;;) {
    if (t.startsWith('*')) t = t.slice(1);
    else if (t.startsWith('...')) t = t.slice(3);
    else if (/^\[\w*\]/.test(t)) t = t.replace(/^\[\w*\]/, '');
    else break;
  }
  t = t.replace(/\[.*\]$/s, '').trim();
  return isTypeName(t) ? [t] : [];
}

function arity(params: string): number | null {
  let n = 0;
  for (const p of splitTopLevel(params)) {
    if (p.includes('...')) return null;
    n++;
  }
  return n;
}

const BUILTINS = new Set(
  (
    'append cap clear close complex copy delete imag len make max min new panic print println real recover ' +
    'bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 ' +
    'uint32 uint64 uintptr any comparable'
  ).split(' '),
);

export const goSymbols: SymbolLanguage = {
  id: 'go',
  queryFiles: () => ['go.scm'],
  selfNames: [],
  bareMembers: false,
  overloads: false,
  packageScope: true,
  constructorName: null,
  constructionTarget: 'class',
  instanceParam: false,
  builtins: BUILTINS,
  commonMembers: new Set(['Error', 'String', 'Close', 'Read', 'Write', 'Len', 'Less', 'Swap']),
  cleanType,
  arity,
  readImportBindings,
};
