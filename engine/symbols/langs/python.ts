import type { CaptureView } from '../../languages/plugin.ts';
import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, splitTopLevel } from '../plugin.ts';
import { cap } from './common.ts';

/**
 * `import a.b` binds `a.b` (the dotted name as written: `a.b.f()` reads it), `import a.b as c` binds `c`;
 * `from m import x as y` binds `y` to `x` of spec `m|x` (kind 'from', as engine/languages/python.ts writes it: the
 * target is module m.x when one exists, else m's file); `from m import *` binds every name of m.
 */
function readImportBindings(captures: CaptureView[]): ImportBindingFact[] {
  const alias = cap(captures, 'import.alias');
  const module = cap(captures, 'import.module');
  if (module) return [{ local: alias?.text ?? module.text, imported: null, spec: module.text, line: module.row + 1 }];
  const from = cap(captures, 'import.from');
  if (!from) return [];
  const name = cap(captures, 'import.name');
  if (!name) return [{ local: null, imported: '*', spec: `${from.text}|*`, spec_kind: 'from', line: from.row + 1 }];
  return [
    {
      local: alias?.text ?? name.text,
      imported: name.text,
      spec: `${from.text}|${name.text}`,
      spec_kind: 'from',
      line: name.row + 1,
    },
  ];
}

const WRAPPERS = new Set(['Optional', 'Type', 'type', 'Final', 'ClassVar', 'Annotated', 'Required', 'NotRequired']);

/** `Foo`, `m.Foo`, `"Foo"`, `Optional[Foo]`, `Foo | None`, `Type[Foo]` give Foo; containers (`list[Foo]`) nothing. */
function cleanType(text: string): string[] {
  const out: string[] = [];
  for (let part of text.split('|')) {
    part = part.trim().replace(/^["']|["']$/g, '');
    for (;;) {
      const m = /^([\w.]+)\[(.*)\]$/s.exec(part);
      if (!m || !WRAPPERS.has(m[1]!.replace(/^typing\./, ''))) break;
      part = splitTopLevel(`(${m[2]!})`)[0] ?? '';
      part = part.trim().replace(/^["']|["']$/g, '');
    }
    if (part !== 'None' && isTypeName(part)) out.push(part);
  }
  return out;
}

function arity(params: string): number | null {
  const parts = splitTopLevel(params).filter((p) => p !== '/' && p !== '*');
  if (parts.some((p) => p.startsWith('*'))) return null;
  return parts.length;
}

const BUILTINS = new Set(
  (
    'abs all any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex delattr dict dir ' +
    'divmod enumerate eval exec filter float format frozenset getattr globals hasattr hash help hex id input int ' +
    'isinstance issubclass iter len list locals map max memoryview min next object oct open ord pow print property ' +
    'range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip __import__ ' +
    'Exception BaseException ValueError TypeError KeyError IndexError AttributeError RuntimeError NotImplementedError ' +
    'StopIteration OSError IOError ImportError AssertionError ZeroDivisionError LookupError ArithmeticError ' +
    'UnicodeDecodeError UnicodeEncodeError PermissionError FileNotFoundError TimeoutError Warning DeprecationWarning ' +
    'UserWarning NotImplemented Ellipsis'
  ).split(' '),
);

const COMMON_MEMBERS = new Set(
  (
    'append extend insert remove pop clear index count sort reverse copy keys values items get setdefault update ' +
    'popitem add discard union intersection difference issubset issuperset join split rsplit strip lstrip rstrip ' +
    'replace startswith endswith lower upper format encode decode find rfind partition splitlines read write ' +
    'readline readlines close flush seek tell open group groups match search sub findall fullmatch debug info ' +
    'warning error exception critical log __init__ __enter__ __exit__ __call__ __getitem__ __setitem__ __len__ ' +
    'mro isoformat strftime'
  ).split(' '),
);

export const pythonSymbols: SymbolLanguage = {
  id: 'python',
  queryFiles: () => ['python.scm'],
  selfNames: ['self', 'cls'],
  bareMembers: false,
  overloads: false,
  packageScope: false,
  constructorName: '__init__',
  constructionTarget: 'class',
  instanceParam: true,
  builtins: BUILTINS,
  memberFallback: false,
  commonMembers: COMMON_MEMBERS,
  cleanType,
  arity,
  readImportBindings,
};
