import type { CaptureView } from '../../languages/plugin.ts';
import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, splitTopLevel, stripGenerics } from '../plugin.ts';
import { cap } from './common.ts';

/**
 * `import a.b.C;` binds C (the class of file C.java); `import static a.b.C.m;` binds m (member m of class C);
 * `import a.b.*;` (kind 'wildcard') and `import static a.b.C.*;` bind every name of the package or class.
 * The spec is the ImportRef's (engine/languages/java.ts).
 */
function readImportBindings(captures: CaptureView[]): ImportBindingFact[] {
  const source = cap(captures, 'import.source');
  if (!source) return [];
  const spec = source.text.replace(/\s+/g, '');
  const isStatic = /^import\s+static\b/.test(cap(captures, 'import')?.text ?? '');
  const wildcard = captures.some((c) => c.name === 'import.wildcard');
  const line = source.row + 1;
  if (wildcard && !isStatic) return [{ local: null, imported: '*', spec, spec_kind: 'wildcard', line }];
  if (wildcard) return [{ local: null, imported: '*', spec, line }];
  const last = spec.slice(spec.lastIndexOf('.') + 1);
  return [{ local: last, imported: last, spec, line }];
}

/** `List<Foo>` gives List; `Foo[]` Foo; `a.b.Foo` stays qualified; `var` and primitives give nothing. */
function cleanType(text: string): string[] {
  let t = stripGenerics(text).replace(/@\w+/g, '');
  while (t.endsWith('[]')) t = t.slice(0, -2);
  if (t.endsWith('...')) t = t.slice(0, -3);
  if (/^(var|void|int|long|short|byte|char|boolean|float|double)$/.test(t)) return [];
  return isTypeName(t) ? [t] : [];
}

/** `(final int a, List<String> b, String... c)` -> ['int', 'List<String>', 'String...']. */
function paramTypes(params: string): string[] {
  return splitTopLevel(params).map((p) => {
    const words = p
      .replace(/@\w+(\([^)]*\))?/g, '')
      .replace(/\bfinal\b/g, '')
      .trim();
    const at = words.search(/\s+[\w$]+(\[\])*$/);
    return (at === -1 ? words : words.slice(0, at)).replace(/\s+/g, '');
  });
}

const INTEGER_LITERALS = new Set([
  'decimal_integer_literal',
  'hex_integer_literal',
  'octal_integer_literal',
  'binary_integer_literal',
]);

/** What an argument's syntax says of its type (SymbolLanguage.argumentHint). */
function argumentHint(nodeType: string, text: string): string | null {
  if (nodeType === 'line_comment' || nodeType === 'block_comment') return null;
  if (nodeType === 'string_literal' || nodeType === 'text_block') return 'String';
  if (nodeType === 'character_literal') return 'char';
  if (nodeType === 'true' || nodeType === 'false') return 'boolean';
  if (INTEGER_LITERALS.has(nodeType)) return /[lL]$/.test(text) ? 'long' : 'int';
  if (nodeType === 'decimal_floating_point_literal' || nodeType === 'hex_floating_point_literal')
    return /[fF]$/.test(text) ? 'float' : 'double';
  if (nodeType === 'class_literal') return 'Class';
  if (nodeType === 'object_creation_expression') {
    const m = /^new\s+([\w$.]+)\s*[<(]/.exec(text);
    return m ? m[1]! : '';
  }
  if (nodeType === 'cast_expression') {
    const m = /^\(\s*([\w$.]+)\s*\)/.exec(text);
    return m ? m[1]! : '';
  }
  if (nodeType === 'identifier' || nodeType === 'this' || nodeType === 'field_access') {
    const t = text.replace(/\s+/g, '');
    return /^[\w$]+(\.[\w$]+)*$/.test(t) ? `=${t}` : '';
  }
  return '';
}

function arity(params: string): number | null {
  const parts = splitTopLevel(params);
  return parts.some((p) => p.includes('...')) ? null : parts.length;
}

export const javaSymbols: SymbolLanguage = {
  id: 'java',
  queryFiles: () => ['java.scm'],
  selfNames: ['this'],
  bareMembers: true,
  overloads: true,
  packageScope: true,
  constructorName: null,
  constructionTarget: 'constructor',
  instanceParam: false,
  builtins: new Set(),
  memberFallback: false,
  commonMembers: new Set(
    'equals hashCode toString get set add put remove size isEmpty contains iterator stream map filter collect forEach close append length charAt substring getClass valueOf of'.split(
      ' ',
    ),
  ),
  cleanType,
  paramTypes,
  argumentHint,
  arity,
  readImportBindings,
};
