import { dirname, join } from './paths.ts';

/** The crate roots of one Cargo package, from its Cargo.toml and Cargo's target auto-discovery. */
export interface CargoTargets {
  /** The library crate's name (with '_') and root file, when the package has one. */
  lib: { name: string; root: string } | null;
  /** Every crate root of the package: lib, bins, tests, examples, benches, build script. */
  roots: string[];
}

interface Section {
  header: string;
  keys: Map<string, string>;
}

/** The string-valued keys of each table of a Cargo.toml (enough for names and paths; not a TOML parser). */
function sections(text: string): Section[] {
  const out: Section[] = [{ header: '', keys: new Map() }];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const h = /^\[\[?\s*([^\]\s]+)\s*\]\]?/.exec(line);
    if (h) out.push({ header: line.startsWith('[[') ? `[[${h[1]}]]` : h[1]!, keys: new Map() });
    const kv = /^([A-Za-z0-9_-]+)\s*=\s*"([^"]*)"/.exec(line);
    if (kv) out[out.length - 1]!.keys.set(kv[1]!, kv[2]!);
  }
  return out;
}

/**
 * Cargo's targets: `[lib] path` (default src/lib.rs), `[[bin]]`/`[[test]]`/`[[example]]`/`[[bench]]` paths,
 * `package.build` (default build.rs), and the auto-discovered src/main.rs, src/bin/*.rs, src/bin/<x>/main.rs,
 * tests/*.rs, examples/*.rs, examples/<x>/main.rs, benches/*.rs. `files` answers whether a path exists, `list` gives
 * the names in a directory and `mains` every path named main.rs.
 */
export function cargoTargets(
  manifest: string,
  text: string,
  files: ReadonlySet<string>,
  list: (dir: string) => readonly string[],
  mains: readonly string[],
): CargoTargets {
  const dir = dirname(manifest);
  const at = (rel: string): string | null => join(dir, rel);
  const exists = (p: string | null): p is string => p !== null && files.has(p);
  const secs = sections(text);
  const pkg = secs.find((s) => s.header === 'package');
  const roots = new Set<string>();
  let lib: CargoTargets['lib'] = null;
  const libSec = secs.find((s) => s.header === 'lib');
  const libPath = at(libSec?.keys.get('path') ?? 'src/lib.rs');
  const pkgName = pkg?.keys.get('name');
  if (exists(libPath)) {
    roots.add(libPath);
    const name = libSec?.keys.get('name') ?? pkgName;
    if (name !== undefined) lib = { name: name.replace(/-/g, '_'), root: libPath };
  }
  for (const s of secs) {
    if (!/^\[\[(bin|test|example|bench)\]\]$/.test(s.header)) continue;
    const p = s.keys.has('path') ? at(s.keys.get('path')!) : null;
    if (exists(p)) roots.add(p);
  }
  const build = at(pkg?.keys.get('build') ?? 'build.rs');
  if (exists(build)) roots.add(build);
  const main = at('src/main.rs');
  if (exists(main)) roots.add(main);
  for (const sub of ['src/bin', 'tests', 'examples', 'benches']) {
    const d = at(sub);
    if (d === null) continue;
    for (const name of list(d)) if (name.endsWith('.rs')) roots.add(`${d}/${name}`);
  }
  // Targets in their own folder: src/bin/<x>/main.rs, examples/<x>/main.rs, tests/<x>/main.rs, benches/<x>/main.rs.
  const prefix = dir === '' ? '' : `${dir}/`;
  for (const f of mains) {
    if (!f.startsWith(prefix)) continue;
    const rel = f.slice(prefix.length);
    if (/^(src\/bin|tests|examples|benches)\/[^/]+\/main\.rs$/.test(rel)) roots.add(f);
  }
  return { lib, roots: [...roots] };
}

/**
 * The crates a library root re-exports under a name of its own (a facade crate): `pub extern crate x as y;`,
 * `pub extern crate x;` and `pub use x as y;` (with any `pub(…)`, attributes such as `#[cfg(…)]` before them), as
 * alias → crate name pairs. Whether `x` is a crate of the tree is for the resolver to check.
 */
export function crateReexports(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const re =
    /^[ \t]*(?:#\[[^\]\n]*\][ \t]*)*pub(?:\([^)\n]*\))?[ \t]+(extern[ \t]+crate|use)[ \t]+(?:::)?(\w+)(?:[ \t]+as[ \t]+(\w+))?[ \t]*;/gm;
  for (const m of text.matchAll(re)) {
    const alias = m[3] ?? m[2]!;
    if (m[1] === 'use' && m[3] === undefined) continue;
    if (alias !== '_') out.set(alias, m[2]!);
  }
  return out;
}
