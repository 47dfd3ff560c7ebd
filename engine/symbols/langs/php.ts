import type { CaptureView } from '../../languages/plugin.ts';
import { readUse } from '../../languages/php.ts';
import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, splitTopLevel } from '../plugin.ts';
import { cap } from './common.ts';

/**
 * `use A\B\C;` binds C, `use A\B\C as D;` binds D (a class of the file composer's rules give, see
 * engine/languages/php.ts), `use function A\f;` binds f; the group form `use A\{B, C as D}` binds each. The specs
 * are the ImportRefs' (php.ts readUse).
 */
function readImportBindings(captures: CaptureView[]): ImportBindingFact[] {
  const use = cap(captures, 'import.use');
  if (!use) return [];
  const refs = readUse(use.text, use.row + 1);
  const out: ImportBindingFact[] = [];
  const aliases = new Map<string, string>();
  for (const r of refs)
    if (r.kind === 'alias') aliases.set(r.spec.slice(r.spec.indexOf('=') + 1), r.spec.slice(0, r.spec.indexOf('=')));
  for (const r of refs) {
    if (r.kind !== 'use' && r.kind !== 'use_function') continue;
    const last = r.spec.slice(r.spec.lastIndexOf('\\') + 1);
    const local = r.kind === 'use' ? (aliases.get(r.spec) ?? last) : last;
    out.push({ local, imported: last, spec: r.spec, spec_kind: r.kind, line: r.line });
  }
  return out;
}

const SCALARS = new Set(
  'int float string bool array callable iterable object mixed void null never false true static self parent'.split(' '),
);

/** `?Foo`, `Foo|null`, `\A\B` (as A.B); scalars give nothing. */
function cleanType(text: string): string[] {
  const out: string[] = [];
  for (const part of text.replace(/^\?/, '').split(/[|&()]/)) {
    const t = part.trim().replace(/^\\/, '').replace(/\\/g, '.');
    if (t === '' || SCALARS.has(t.toLowerCase())) continue;
    if (isTypeName(t)) out.push(t);
  }
  return out;
}

/** `$this->a->b` -> `this.a.b`, `$x` -> `$x`, `Foo::` scopes -> `Foo`, `\A\B` -> `A.B`, `self`/`static` -> `this`. */
function normalizeReceiver(text: string): string {
  let t = text.trim();
  if (/^(self|static)$/.test(t)) return 'this';
  if (t === 'parent') return 'super';
  t = t.replace(/^\$this(?=$|\s*\??->)/, 'this');
  t = t.replace(/\s*\??->\s*/g, '.').replace(/::/g, '.');
  t = t.replace(/^\\/, '').replace(/\\/g, '.');
  return t;
}

function paramTypes(params: string): string[] {
  return splitTopLevel(params).map((p) => {
    const at = p.indexOf('$');
    return (at === -1 ? '' : p.slice(0, at))
      .replace(/\b(public|private|protected|readonly)\b/g, '')
      .replace(/[&.\s]/g, '');
  });
}

function arity(params: string): number | null {
  const parts = splitTopLevel(params);
  return parts.some((p) => p.includes('...') || p.includes('=')) ? null : parts.length;
}

export const phpSymbols: SymbolLanguage = {
  id: 'php',
  queryFiles: () => ['php.scm'],
  selfNames: ['this'],
  bareMembers: false,
  overloads: false,
  packageScope: true,
  packageByName: true,
  namespaceQualifiers: true,
  constructorName: '__construct',
  constructionTarget: 'constructor',
  instanceParam: false,
  normalizeReceiver,
  builtins: new Set(
    'strlen count array_map array_filter array_keys array_values array_merge in_array implode explode sprintf printf str_replace substr strpos trim json_encode json_decode isset unset empty is_array is_string is_int is_null intval strval var_dump print_r preg_match preg_replace function_exists class_exists method_exists call_user_func call_user_func_array'.split(
      ' ',
    ),
  ),
  commonMembers: new Set('get set has add remove count toArray getName getValue __toString'.split(' ')),
  cleanType,
  paramTypes,
  arity,
  readImportBindings,
};
