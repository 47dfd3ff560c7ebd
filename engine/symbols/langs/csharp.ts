import type { CaptureView } from '../../languages/plugin.ts';
import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, splitTopLevel, stripGenerics } from '../plugin.ts';
import { cap } from './common.ts';

/**
 * `using A.B;` opens namespace A.B: every type of it (the files of its folder that declare it, see
 * engine/languages/csharp.ts) is visible, like a Java wildcard import. `using static A.B.C;` opens the members of
 * type C; `using X = A.B.C;` binds X. The spec is the ImportRef's (the text after `using`).
 */
function readImportBindings(captures: CaptureView[]): ImportBindingFact[] {
  const source = cap(captures, 'import.source');
  if (!source) return [];
  const whole = cap(captures, 'import')?.text ?? '';
  const spec = source.text.replace(/\s+/g, '');
  const line = source.row + 1;
  const alias = /^\s*(?:global\s+)?using\s+(\w+)\s*=/.exec(whole);
  if (alias) return [{ local: alias[1]!, imported: null, spec, line }];
  if (/^\s*(?:global\s+)?using\s+static\b/.test(whole)) return [{ local: null, imported: '*', spec, line }];
  return [{ local: null, imported: '*', spec, line }];
}

const PREDEFINED = new Set(
  'var void bool byte sbyte char decimal double float int uint nint nuint long ulong short ushort object string dynamic'.split(
    ' ',
  ),
);

/** `List<Foo>` gives List; `Foo[]`, `Foo?` give Foo; `global::A.B` gives A.B; predefined types give nothing. */
function cleanType(text: string): string[] {
  let t = stripGenerics(text).replace(/^global::/, '');
  while (t.endsWith('[]') || t.endsWith('?') || t.endsWith('*')) t = t.endsWith('[]') ? t.slice(0, -2) : t.slice(0, -1);
  t = t.replace(/\[,*\]$/, '');
  if (PREDEFINED.has(t)) return [];
  return isTypeName(t) ? [t] : [];
}

/** `(ref int a, List<string> b, params object[] c)` -> ['int', 'List<string>', 'object[]']. */
function paramTypes(params: string): string[] {
  return splitTopLevel(params).map((p) => {
    const words = p
      .replace(/\[[^\]]*\]/g, (m) => (m === '[]' ? m : ''))
      .replace(/=.*$/, '')
      .replace(/\b(ref|out|in|params|this|scoped|readonly)\s+/g, '')
      .trim();
    const at = words.search(/\s+@?\w+$/);
    return (at === -1 ? words : words.slice(0, at)).replace(/\s+/g, '');
  });
}

function arity(params: string): number | null {
  const parts = splitTopLevel(params);
  return parts.some((p) => /\bparams\b/.test(p) || p.includes('=')) ? null : parts.length;
}

export const csharpSymbols: SymbolLanguage = {
  id: 'csharp',
  queryFiles: () => ['csharp.scm'],
  selfNames: ['this'],
  superNames: ['base'],
  packageByName: true,
  namespaceQualifiers: true,
  openClasses: true,
  implementsByTargetKind: true,
  bareMembers: true,
  overloads: true,
  packageScope: true,
  constructorName: null,
  constructionTarget: 'constructor',
  instanceParam: false,
  // Operators that look like calls, and the predefined and most used framework types (a call through them is
  // external, never a repository method of the same name).
  builtins: new Set([
    'nameof',
    'typeof',
    'sizeof',
    'default',
    ...PREDEFINED,
    ...'String Object Math Console Convert Enum Array Buffer Char Int32 Int64 Double Decimal Boolean DateTime DateTimeOffset TimeSpan Guid Uri Type Activator Environment Path File Directory Encoding Task Thread Interlocked Monitor GC Debug Trace List Dictionary HashSet Queue Stack Tuple ValueTuple Nullable Lazy StringBuilder Regex Assert CultureInfo BitConverter Marshal Expression'.split(
      ' ',
    ),
  ]),
  commonMembers: new Set(
    'Equals GetHashCode ToString GetType Add Remove Contains Count Clear Get Set Dispose Select Where First FirstOrDefault Any All ToList ToArray Append Length Substring Format Write WriteLine'.split(
      ' ',
    ),
  ),
  cleanType,
  paramTypes,
  arity,
  readImportBindings,
};
