import type { CaptureView, ImportRef } from '../../languages/plugin.ts';
import { expandUseItems } from '../../languages/rust-use.ts';
import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, splitTopLevel, stripGenerics } from '../plugin.ts';
import { cap } from './common.ts';

/**
 * `use a::b::C;` binds C, `use a::b::C as D;` binds D, `use a::b::{self, C}` binds b (the module) and C,
 * `use a::b::*;` opens a::b; `mod x;` binds module x. The path is the ImportRef's as the query wrote it; finishBindings maps it to the
 * ImportRef the file-level rules rewrote (crate aliases, `self::` for a declared module, inline modules).
 */
function readImportBindings(captures: CaptureView[]): ImportBindingFact[] {
  const mod = cap(captures, 'import.mod');
  if (mod) return [{ local: mod.text, imported: null, spec: mod.text, spec_kind: 'mod', line: mod.row + 1 }];
  const use = cap(captures, 'import.use');
  if (!use) return [];
  const line = use.row + 1;
  return expandUseItems(use.text).map((item): ImportBindingFact => {
    if (item.glob) return { local: null, imported: '*', spec: item.path, line };
    const last = item.path.slice(item.path.lastIndexOf('::') + 2);
    return { local: item.alias ?? last, imported: last, spec: item.path, line };
  });
}

/** Each binding's spec becomes that of the file's ImportRef on its line for the same path (as rewritten). */
function finishBindings(bindings: ImportBindingFact[], imports: readonly ImportRef[]): ImportBindingFact[] {
  const byLine = new Map<number, ImportRef[]>();
  for (const r of imports) {
    if (r.kind !== undefined) continue;
    const list = byLine.get(r.line);
    if (list) list.push(r);
    else byLine.set(r.line, [r]);
  }
  return bindings.map((b) => {
    const refs = byLine.get(b.line) ?? [];
    if (refs.some((r) => r.spec === b.spec)) return b;
    const tail = b.spec.includes('::') ? b.spec.slice(b.spec.indexOf('::')) : `::${b.spec}`;
    const hit = refs.find((r) => r.spec.endsWith(tail));
    return hit ? { ...b, spec: hit.spec } : b;
  });
}

/** `&'a mut Foo<T>` gives Foo; `a::b::Foo` gives a.b.Foo; `dyn Trait`/`impl Trait` give Trait; primitives nothing. */
function cleanType(text: string): string[] {
  const t = stripGenerics(
    text
      .replace(/'\w+/g, '')
      .replace(/\b(dyn|impl|mut|const)\s+/g, '')
      .replace(/^[&*\s]+/, ''),
  )
    .replace(/^[&*]+/, '')
    .replace(/::/g, '.');
  if (/^(self|str|bool|char|[iu](8|16|32|64|128|size)|f32|f64|\(\))$/.test(t)) return [];
  return isTypeName(t) ? [t] : [];
}

/** `a::b` -> `a.b`; `Self` stays (the impl's type). */
function normalizeReceiver(text: string): string {
  return stripGenerics(text.trim()).replace(/^::/, '').replace(/::/g, '.');
}

function arity(params: string): number | null {
  return splitTopLevel(params).filter((p) => !/^(&\s*('\w+\s+)?(mut\s+)?)?(mut\s+)?self\b/.test(p)).length;
}

export const rustSymbols: SymbolLanguage = {
  id: 'rust',
  queryFiles: () => ['rust.scm'],
  selfNames: ['self', 'Self'],
  bareMembers: false,
  overloads: false,
  // Methods attach to their type by name within the crate (impl blocks may sit in any file of it); other names
  // come only from the file's scope and its `use`s.
  packageScope: true,
  packageTopLevel: false,
  packageOf: (path) => {
    const at = path.lastIndexOf('/src/');
    if (at !== -1) return path.slice(0, at + 4);
    if (path.startsWith('src/')) return 'src';
    const slash = path.lastIndexOf('/');
    return slash === -1 ? '' : path.slice(0, slash);
  },
  modulesAreFiles: true,
  containerName: (name) => cleanType(name)[0]?.replace(/^.*\./, '') ?? name,
  constructorName: null,
  constructionTarget: 'class',
  instanceParam: false,
  normalizeReceiver,
  finishBindings,
  builtins: new Set(
    'Some None Ok Err Box Vec String Option Result drop panic assert assert_eq format println print eprintln write writeln vec Default Clone From Into'.split(
      ' ',
    ),
  ),
  commonMembers: new Set(
    'iter into_iter map filter collect unwrap expect clone to_string to_owned as_ref as_str len is_empty push pop insert get contains next ok err and_then unwrap_or map_err sum fmt from into default eq cmp hash'.split(
      ' ',
    ),
  ),
  cleanType,
  arity,
  readImportBindings,
};
