import { basename, dirname, join } from './paths.ts';

/** What class and function lookup needs from the composer.json files of a tree (their `autoload` sections). */
export interface ComposerIndex {
  /** PSR-4 namespace prefixes (with trailing '\\', '' for a fallback) → directories; longest prefix first. */
  psr4: Array<{ prefix: string; dirs: string[] }>;
  /** PSR-0 prefixes (namespace or `Vendor_` style, '' for a fallback) → directories; longest prefix first. */
  psr0: Array<{ prefix: string; dirs: string[] }>;
  /** `classmap` entries: directories or files composer scans for classes. */
  classmap: string[];
  /** Functions declared by the `files` entries (always loaded): lower-cased qualified name → file. */
  functions: Map<string, string>;
  /** Namespace constants (`const X = …` at the top level) declared by the `files` entries: qualified name → file. */
  constants: Map<string, string>;
  /** Directories of composer.json files that declare autoload rules (psr-4, psr-0, classmap or files). */
  autoloadDirs: Set<string>;
  /** Directories of every composer.json (a package's root). */
  packageDirs: Set<string>;
  /**
   * Classes of PHP files outside any package with autoload rules (an application with its own autoloader, or no
   * composer.json): lower-cased `Namespace\FileStem` → file, from the file's `namespace` declaration and its name
   * (one class per file, named after it, as autoloaders expect).
   */
  classes: Map<string, string>;
}

export function emptyComposerIndex(): ComposerIndex {
  return {
    psr4: [],
    psr0: [],
    classmap: [],
    functions: new Map(),
    constants: new Map(),
    autoloadDirs: new Set(),
    packageDirs: new Set(),
    classes: new Map(),
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringList(v: unknown): string[] {
  return (Array.isArray(v) ? v : [v]).filter((t): t is string => typeof t === 'string');
}

/**
 * Adds one composer.json (directory `dir`, parsed `json`) to the index: `autoload` and `autoload-dev` (a checkout is
 * developed, so its tests' rules count). `read` gives a tree file's text, for the `files` entries' functions.
 */
export function addComposerJson(
  index: ComposerIndex,
  dir: string,
  json: unknown,
  files: ReadonlySet<string>,
  read: (path: string) => string | null,
): void {
  index.packageDirs.add(dir);
  if (!isRecord(json)) return;
  for (const section of [json.autoload, json['autoload-dev']]) {
    if (!isRecord(section)) continue;
    for (const [key, list] of [
      ['psr-4', index.psr4],
      ['psr-0', index.psr0],
    ] as const) {
      const rules = section[key];
      if (!isRecord(rules)) continue;
      for (const [prefix, target] of Object.entries(rules)) {
        const dirs = stringList(target)
          .map((t) => join(dir, t))
          .filter((t): t is string => t !== null);
        list.push({ prefix, dirs });
        index.autoloadDirs.add(dir);
      }
    }
    for (const entry of stringList(section.classmap)) {
      const p = join(dir, entry);
      if (p !== null) index.classmap.push(p);
      index.autoloadDirs.add(dir);
    }
    for (const entry of stringList(section.files)) {
      index.autoloadDirs.add(dir);
      const p = join(dir, entry);
      if (p === null || !files.has(p)) continue;
      const declared = phpDeclarations(read(p) ?? '');
      for (const name of declared.functions) if (!index.functions.has(name)) index.functions.set(name, p);
      for (const name of declared.constants) if (!index.constants.has(name)) index.constants.set(name, p);
    }
  }
}

/**
 * Completes the index once every composer.json is added: rules sorted longest prefix first, and the classes of the
 * `.php` files no autoload rule covers (`head` gives the first bytes of a file, enough for its namespace line).
 */
export function finishComposerIndex(
  index: ComposerIndex,
  files: Iterable<string>,
  head: (path: string) => string | null,
): void {
  index.psr4.sort((a, b) => b.prefix.length - a.prefix.length);
  index.psr0.sort((a, b) => b.prefix.length - a.prefix.length);
  for (const p of files) {
    if (!p.endsWith('.php') || packageAutoloads(index, p)) continue;
    const text = head(p);
    if (text === null) continue;
    const ns = /^[ \t]*namespace[ \t]+\\?([A-Za-z_\x80-\uffff][\w\x80-\uffff\\]*)[ \t]*[;{]/m.exec(text)?.[1];
    // Legacy spellings of a one-class file: X.class.php, class.X.php.
    const stem = basename(p)
      .slice(0, -'.php'.length)
      .replace(/\.class$|^class\./i, '');
    const key = (ns === undefined ? stem : `${ns}\\${stem}`).toLowerCase();
    const known = index.classes.get(key);
    if (known === undefined || p.length < known.length) index.classes.set(key, p);
  }
}

/** Whether the nearest composer.json at or above the file declares autoload rules. */
export function packageAutoloads(index: ComposerIndex, file: string): boolean {
  for (let d = dirname(file); ; d = dirname(d)) {
    if (index.packageDirs.has(d)) return index.autoloadDirs.has(d);
    if (d === '') return false;
  }
}

/**
 * Functions and constants a PHP file declares. Functions as lower-cased qualified names: `function name(` at the
 * start of a line (top level or inside an `if (!function_exists(...))` block; methods carry a modifier before
 * `function`); constants: `const NAME =` at the start of an unindented line (class constants are indented). Both in
 * the namespace of the nearest `namespace X;` or `namespace X {` above.
 */
export function phpDeclarations(text: string): { functions: string[]; constants: string[] } {
  const functions: string[] = [];
  const constants: string[] = [];
  let ns = '';
  const qualified = (name: string): string => (ns === '' ? name : `${ns}\\${name}`);
  for (const line of text.split('\n')) {
    const n = /^\s*namespace\s+([A-Za-z_\\][\w\\]*)\s*[;{]/.exec(line);
    if (n) ns = n[1]!.replace(/^\\/, '');
    const f = /^\s*function\s+&?\s*([A-Za-z_\x80-\uffff][\w\x80-\uffff]*)\s*\(/.exec(line);
    if (f) functions.push(qualified(f[1]!).toLowerCase());
    const c = /^const\s+([A-Za-z_\x80-\uffff][\w\x80-\uffff]*)\s*=/.exec(line);
    if (c) constants.push(qualified(c[1]!));
  }
  return { functions, constants };
}
