import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join, relative } from 'node:path';
import type { Truth } from './types.ts';
import { walkFiles } from './walk.ts';

interface GoPackage {
  ImportPath: string;
  Dir: string;
  GoFiles?: string[];
  CgoFiles?: string[];
  Imports?: string[];
}

/** Splits `go list -json` output (concatenated objects). */
function parseConcatenated(out: string): GoPackage[] {
  const pkgs: GoPackage[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < out.length; i++) {
    const c = out[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && --depth === 0) pkgs.push(JSON.parse(out.slice(start, i + 1)) as GoPackage);
  }
  return pkgs;
}

/**
 * `go list -e -json ./...` in every module of the tree (GOFLAGS=-mod=mod; missing dependencies come from the module
 * proxy; -e keeps packages whose dependencies cannot be had). Go imports name packages, so the comparison is per package: the engine
 * edges of a package's non-test files, as package directories, against the package's Imports that are packages of
 * the tree.
 */
export function goTruth(root: string): Truth {
  const mods = walkFiles(root, (p) => p.endsWith('go.mod') && !/(^|\/)(vendor|testdata)\//.test(p));
  const pkgs: GoPackage[] = [];
  for (const m of mods) {
    const cwd = join(root, dirname(m));
    // Dependencies come from the module proxy (go mod download) when not in the module cache; -e keeps going.
    const r = spawnSync('go', ['list', '-e', '-json', './...'], {
      cwd,
      encoding: 'utf8',
      maxBuffer: 1 << 29,
      env: { ...process.env, GOFLAGS: '-mod=mod', GOWORK: 'off', GOTOOLCHAIN: 'local' },
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 600_000,
    });
    pkgs.push(...parseConcatenated(r.stdout ?? ''));
  }
  const dirOf = new Map<string, string>();
  for (const p of pkgs) dirOf.set(p.ImportPath, relative(root, p.Dir));
  const scope = new Set<string>();
  const items: Truth['items'] = [];
  const filesOf = (dir: string): Set<string> =>
    new Set(
      walkFiles(join(root, dir), (f) => !f.includes('/') && f.endsWith('.go') && !f.endsWith('_test.go')).map((f) =>
        dir === '' ? f : `${dir}/${f}`,
      ),
    );
  const cache = new Map<string, Set<string>>();
  for (const p of pkgs) {
    const dir = relative(root, p.Dir);
    if (dir.startsWith('..')) continue;
    const own = [...(p.GoFiles ?? []), ...(p.CgoFiles ?? [])].map((f) => (dir === '' ? f : `${dir}/${f}`));
    for (const f of own) scope.add(f);
    if (own.length === 0) continue;
    for (const imp of p.Imports ?? []) {
      const target = dirOf.get(imp);
      if (target === undefined || target.startsWith('..')) continue;
      if (!cache.has(target)) cache.set(target, filesOf(target));
      items.push({ from: own[0]!, targets: cache.get(target)! });
    }
  }
  const group = (f: string): string => {
    const d = f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '';
    return d;
  };
  // Units are package directories; targets are compared as the files of the target package.
  return {
    tool: `${execFileSync('go', ['version'], { encoding: 'utf8' }).trim()}: go list -e -json ./... per module (GoFiles+CgoFiles, Imports), compared per package`,
    scope,
    items,
    group,
    targetFilter: (t) => t.endsWith('.go') && !t.endsWith('_test.go'),
  };
}
