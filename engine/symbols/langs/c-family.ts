import type { ImportBindingFact } from '../types.ts';
import type { SymbolLanguage } from '../plugin.ts';
import { isTypeName, splitTopLevel, stripGenerics } from '../plugin.ts';

/** An `#include` binds no names: what a header declares is visible, and definitions are found by name. */
function readImportBindings(): ImportBindingFact[] {
  return [];
}

const BUILTIN_TYPES = new Set(
  'void char short int long float double signed unsigned bool _Bool size_t ssize_t auto const volatile struct class union enum typename'.split(
    ' ',
  ),
);

/** `const ns::Foo<T>&` gives ns.Foo; `struct s *` gives s; builtin types give nothing. */
function cleanType(text: string): string[] {
  const t = stripGenerics(text.replace(/\b(const|volatile|struct|class|union|enum|typename|mutable)\b/g, ' '))
    .replace(/[*&]+$/g, '')
    .replace(/^::/, '')
    .replace(/::/g, '.');
  if (t === '' || BUILTIN_TYPES.has(t) || t.startsWith('std.')) return [];
  return isTypeName(t) ? [t] : [];
}

/** `p->a` -> `p.a`, `ns::T` -> `ns.T`, `this->f` -> `this.f`, `(*p).f` stays (dynamic). */
function normalizeReceiver(text: string): string {
  return stripGenerics(text.trim()).replace(/^::/, '').replace(/->/g, '.').replace(/::/g, '.');
}

function paramTypes(params: string): string[] {
  return splitTopLevel(params).map((p) =>
    p
      .replace(/=.*$/s, '')
      .replace(/\s*[A-Za-z_]\w*\s*(\[[^\]]*\])*\s*$/, (m) =>
        /^\s*(const|int|char|long|double|float|unsigned|bool)\s*$/.test(m) ? m : '',
      )
      .replace(/\s+/g, ''),
  );
}

function arity(params: string): number | null {
  const parts = splitTopLevel(params);
  if (parts.length === 1 && parts[0]!.trim() === 'void') return 0;
  return parts.some((p) => p.includes('...') || p.includes('=')) ? null : parts.length;
}

const C_BUILTINS = new Set(
  'printf fprintf sprintf snprintf scanf sscanf malloc calloc realloc free memcpy memmove memset memcmp strlen strcmp strncmp strcpy strncpy strcat strchr strrchr strstr strdup atoi atol strtol strtoul abort exit assert fopen fclose fread fwrite fgets fputs puts putchar getchar perror qsort bsearch sizeof offsetof va_start va_end va_arg isalpha isdigit isspace toupper tolower errno'.split(
    ' ',
  ),
);

const common = {
  selfNames: ['this'],
  overloads: false,
  // Files of one directory (a header beside its sources) share top-level names and out-of-line members.
  packageScope: true,
  constructorName: null,
  constructionTarget: 'class' as const,
  instanceParam: false,
  cleanType,
  paramTypes,
  arity,
  readImportBindings,
};

export const cSymbols: SymbolLanguage = {
  ...common,
  id: 'c',
  queryFiles: () => ['c.scm'],
  bareMembers: false,
  builtins: C_BUILTINS,
  commonMembers: new Set(),
};

export const cppSymbols: SymbolLanguage = {
  ...common,
  id: 'cpp',
  queryFiles: () => ['cpp.scm'],
  bareMembers: true,
  overloads: true,
  namespaceQualifiers: true,
  normalizeReceiver,
  builtins: C_BUILTINS,
  commonMembers: new Set(
    'size empty begin end push_back emplace_back insert erase find count clear data c_str str get reset release swap at front back first second'.split(
      ' ',
    ),
  ),
};
