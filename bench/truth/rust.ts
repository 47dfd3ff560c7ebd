import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Truth } from './types.ts';
import { walkFiles } from './walk.ts';

interface Target {
  kind: string[];
  src_path: string;
  edition: string;
  cfgs?: string[];
}

/**
 * The cfgs a package's build script may set: `cargo:rustc-cfg=x`, `cargo:rustc-cfg=k="v"` (every value it prints,
 * e.g. `fast_arithmetic="32"` and `="64"` of which a host sets one), `cargo:rustc-check-cfg=cfg(x, y)` and
 * `cfg(k, values("a", "b"))`; as rustc --cfg arguments.
 */
function buildCfgs(manifest: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(dirname(manifest), 'build.rs'), 'utf8');
  } catch {
    return [];
  }
  const cfgs = new Set<string>();
  for (const m of text.matchAll(/rustc-cfg=(\w+)(?:=\\?"([^"\\]*)\\?")?/g))
    cfgs.add(m[2] === undefined ? m[1]! : `${m[1]!}="${m[2]}"`);
  for (const m of text.matchAll(/rustc-check-cfg=cfg\(([^)]*?)(?:,\s*values\(([^)]*)\))?\)/g)) {
    const values = [...(m[2] ?? '').matchAll(/\\?"([^"\\]*)\\?"/g)].map((v) => v[1]!);
    if (values.length === 0) for (const n of m[1]!.split(',')) cfgs.add(n.trim());
    else for (const v of values) cfgs.add(`${m[1]!.trim()}="${v}"`);
  }
  return [...cfgs].filter((n) => n.length > 0);
}

/**
 * rustc's own module loading: `cargo metadata --no-deps --offline` lists every target (crate root) of every package;
 * `rustc --emit=dep-info` on each root lists the module files the compiler loads for it (it writes them even when
 * names of external crates do not resolve). Items are the module tree: each compiled module file's parent by the
 * reference's path rules (a.rs or a/mod.rs holds a/b.rs; the root holds the first level); files reached only
 * through #[path] or include! have no derivable parent and are left out. rustc gives no per-use file edges without
 * nightly flags, so a `use` edge of the engine counts as right when its target is compiled in the source's crate or
 * is a module of a library crate of the tree (the only places a use path can lead).
 */
export function rustTruth(root: string): Truth {
  const manifests = walkFiles(root, (p) => basename(p) === 'Cargo.toml' && !p.includes('/target/'));
  const targets: Target[] = [];
  for (const m of manifests) {
    const r = spawnSync('cargo', ['metadata', '--no-deps', '--offline', '--format-version', '1'], {
      cwd: join(root, dirname(m)),
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    if (r.status !== 0) continue;
    const meta = JSON.parse(r.stdout) as {
      packages: Array<{ targets: Target[]; features: Record<string, unknown>; manifest_path: string }>;
    };
    for (const p of meta.packages) {
      const cfgs = ['test', ...Object.keys(p.features).map((f) => `feature="${f}"`), ...buildCfgs(p.manifest_path)];
      for (const t of p.targets) targets.push({ ...t, cfgs });
    }
  }
  const seen = new Set<string>();
  const crateFiles: Array<{ root: string; files: Set<string>; lib: boolean }> = [];
  const tmp = mkdtempSync(join(tmpdir(), 'truth-rust-'));
  try {
    for (const t of targets) {
      const rootRel = relative(root, t.src_path);
      if (rootRel.startsWith('..') || seen.has(rootRel)) continue;
      seen.add(rootRel);
      // Twice: the default configuration, and every configuration at once (cfg(test), all features, the build
      // script's cfgs): the engine keeps conditional modules, so the union is the comparable module set.
      const files = new Set<string>();
      for (const cfgs of [[], t.cfgs ?? []]) {
        const out = join(tmp, `${seen.size}-${cfgs.length}.d`);
        const args = [
          '--edition',
          t.edition,
          '--crate-type',
          'lib',
          '--emit=dep-info',
          '-o',
          out,
          '--cap-lints',
          'allow',
        ];
        spawnSync('rustc', [...args, ...cfgs.flatMap((c) => ['--cfg', c]), t.src_path], {
          cwd: root,
          stdio: 'ignore',
          timeout: 120_000,
        });
        let text = '';
        try {
          text = readFileSync(out, 'utf8');
        } catch {
          continue;
        }
        const first = text.split('\n')[0] ?? '';
        for (const f of first
          .slice(first.indexOf(':') + 1)
          .trim()
          .split(/(?<!\\) /)) {
          const rel = relative(root, resolve(root, f.replace(/\\ /g, ' ')));
          if (rel.endsWith('.rs') && !rel.startsWith('..')) files.add(rel);
        }
      }
      crateFiles.push({ root: rootRel, files, lib: t.kind.some((k) => k.endsWith('lib')) });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const items: Truth['items'] = [];
  const scope = new Set<string>();
  for (const c of crateFiles) {
    const base = dirname(c.root);
    for (const f of c.files) {
      scope.add(f);
      if (f === c.root) continue;
      const rel = relative(base, f);
      if (rel.startsWith('..')) continue;
      const segs = rel.replace(/\.rs$/, '').split('/');
      if (segs[segs.length - 1] === 'mod') segs.pop();
      const p = join(base, ...segs.slice(0, -1));
      const parent =
        segs.length === 1
          ? c.root
          : ([relative(root, join(root, `${p}.rs`)), relative(root, join(root, p, 'mod.rs'))].find((x) =>
              c.files.has(x),
            ) ?? null);
      if (parent !== null && parent !== f) items.push({ from: parent, targets: new Set([f]) });
    }
  }
  const libFiles = new Set(crateFiles.filter((c) => c.lib).flatMap((c) => [...c.files]));
  const plausible = (from: string, to: string): boolean =>
    libFiles.has(to) || crateFiles.some((c) => c.files.has(from) && c.files.has(to));
  return {
    tool: `${execFileSync('rustc', ['--version'], { encoding: 'utf8' }).trim()}: cargo metadata targets + rustc --emit=dep-info module sets (default cfg, and test + all features + build-script cfgs); mod tree by path rules; use edges checked for plausibility only`,
    scope,
    items,
    plausible,
  };
}
