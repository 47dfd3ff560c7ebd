import type { CaptureView } from '../../languages/plugin.ts';
import { unquote } from '../../languages/plugin.ts';
import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, splitTopLevel, stripGenerics } from '../plugin.ts';
import { cap, caps } from './common.ts';

/**
 * JavaScript and TypeScript import bindings: `import D, { a as b } from 'm'`, `import * as ns from 'm'`,
 * `const x = require('m')`, `const { a } = require('m')`, TS `import x = require('m')`, and re-exports
 * (`export { a as b } from 'm'`, `export * from 'm'`).
 */
function readImportBindings(captures: CaptureView[]): ImportBindingFact[] {
  const source = cap(captures, 'import.source');
  if (!source) return [];
  const spec = unquote(source.text);
  if (spec === '') return [];
  const line = source.row + 1;
  const reexport = captures.some((c) => c.name === 'import.reexport');
  const out: ImportBindingFact[] = [];
  const def = cap(captures, 'import.default');
  if (def) out.push({ local: def.text, imported: 'default', spec, line });
  const ns = cap(captures, 'import.namespace');
  if (ns) out.push({ local: ns.text, imported: null, spec, line });
  const name = cap(captures, 'import.name');
  if (name) {
    const alias = cap(captures, 'import.alias');
    if (reexport) out.push({ local: alias?.text ?? name.text, imported: name.text, spec, line, reexport: true });
    else out.push({ local: alias?.text ?? name.text, imported: name.text, spec, line });
  }
  if (reexport && !name) out.push({ local: null, imported: '*', spec, line, reexport: true });
  for (const b of caps(captures, 'import.pattern')) out.push({ local: b.text, imported: b.text, spec, line });
  return out;
}

/** `Foo<T>`, `ns.Foo`, `Foo[]`, `A | B` (each), `Promise<Foo>` (Promise). Literal and function types give nothing. */
function cleanType(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split('|')) {
    let t = stripGenerics(part).replace(/^readonly/, '');
    while (t.endsWith('[]')) t = t.slice(0, -2);
    if (isTypeName(t)) out.push(t);
  }
  return out;
}

function arity(params: string): number | null {
  const parts = splitTopLevel(params).filter((p) => !/^this\s*:/.test(p));
  return parts.some((p) => p.startsWith('...')) ? null : parts.length;
}

/** The globals of browsers and Node.js and the builtins of ECMAScript. */
const BUILTINS = new Set(
  (
    'require parseInt parseFloat isNaN isFinite setTimeout clearTimeout setInterval clearInterval setImmediate ' +
    'clearImmediate queueMicrotask structuredClone fetch encodeURIComponent decodeURIComponent encodeURI decodeURI ' +
    'String Number Boolean Symbol BigInt Object Array Error TypeError RangeError SyntaxError Promise Map Set WeakMap ' +
    'WeakSet Date RegExp JSON Math Reflect Proxy console process Buffer URL URLSearchParams TextEncoder TextDecoder ' +
    'AbortController Uint8Array Int32Array Float64Array ArrayBuffer DataView globalThis window document alert ' +
    'atob btoa eval Function describe it test expect beforeEach afterEach beforeAll afterAll jest vi ' +
    'string number boolean never void undefined null bigint symbol this Record Partial ' +
    'Readonly Required Pick Omit Exclude Extract ReturnType Parameters Awaited NonNullable InstanceType Iterable ' +
    'AsyncIterable Iterator IterableIterator Generator AsyncGenerator PromiseLike ArrayLike ReadonlyArray HTMLElement'
  ).split(' '),
);

/** Methods of Array, String, Map, Set, Promise, Object, and Node's streams/emitters: never resolved by unique name. */
const COMMON_MEMBERS = new Set(
  (
    'push pop shift unshift slice splice concat join reverse sort filter map reduce reduceRight forEach some every ' +
    'find findIndex findLast includes indexOf lastIndexOf flat flatMap fill keys values entries at from of split ' +
    'replace replaceAll trim trimStart trimEnd toLowerCase toUpperCase startsWith endsWith padStart padEnd charAt ' +
    'charCodeAt substring substr match matchAll search repeat localeCompare normalize get set has delete clear add ' +
    'then catch finally resolve reject all race allSettled any toString valueOf toJSON hasOwnProperty call apply ' +
    'bind assign freeze create defineProperty getPrototypeOf stringify parse test exec emit on once off ' +
    'addListener removeListener removeAllListeners write end read pipe destroy close open next return throw log ' +
    'warn error info debug length size now max min floor ceil round abs random isArray'
  ).split(' '),
);

export function ecmascript(id: 'javascript' | 'typescript', queryFiles: (dialect: string) => string[]): SymbolLanguage {
  return {
    id,
    queryFiles,
    selfNames: ['this'],
    bareMembers: false,
    overloads: false,
    packageScope: false,
    constructorName: 'constructor',
    constructionTarget: 'constructor',
    constructsWithNew: true,
    instanceParam: false,
    builtins: BUILTINS,
    commonMembers: COMMON_MEMBERS,
    cleanType,
    arity,
    readImportBindings,
  };
}
