import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import type { Truth } from './types.ts';
import { walkFiles } from './walk.ts';

const SOURCE = /\.(m|c)?(j|t)sx?$/;

/**
 * The TypeScript compiler's own import scanner (ts.preProcessFile: import/export-from, require(), import()) and
 * module resolver (ts.resolveModuleName, Node10 rules: files, extensions, package.json types/main, index files,
 * tsconfig baseUrl/paths of the nearest tsconfig.json/jsconfig.json). Workspace packages are resolved as if linked
 * into node_modules (what npm/yarn/pnpm workspaces do): a bare specifier naming a package.json `name` of the tree
 * is resolved from that package's directory.
 */
export function jsTruth(root: string): Truth {
  const files = walkFiles(root, (p) => SOURCE.test(p));
  const all = walkFiles(root, (p) => p.endsWith('package.json') || /(^|\/)(ts|js)config\.json$/.test(p));
  const workspaces = new Map<string, string>();
  for (const p of all.filter((x) => x.endsWith('package.json')).sort((a, b) => a.length - b.length)) {
    try {
      const name = (JSON.parse(readFileSync(join(root, p), 'utf8')) as { name?: unknown }).name;
      if (typeof name === 'string' && !workspaces.has(name)) workspaces.set(name, dirname(join(root, p)));
    } catch {
      // not JSON: no package
    }
  }
  const configs = all
    .filter((p) => /(ts|js)config\.json$/.test(p))
    .map((p) => {
      const abs = join(root, p);
      const read = ts.readConfigFile(abs, (p) => ts.sys.readFile(p));
      const parsed = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, dirname(abs), undefined, abs);
      return { dir: dirname(abs), options: parsed.options };
    })
    .sort((a, b) => b.dir.length - a.dir.length);
  const items: Truth['items'] = [];
  const inside = (abs: string | undefined): string[] => {
    if (abs === undefined) return [];
    const rel = relative(root, abs);
    return rel.startsWith('..') || rel.split('/').includes('node_modules') ? [] : [rel];
  };
  for (const f of files) {
    const abs = join(root, f);
    const text = readFileSync(abs, 'utf8');
    const config = configs.find((c) => abs.startsWith(c.dir + '/'));
    const options: ts.CompilerOptions = {
      ...(config?.options ?? {}),
      allowJs: true,
      resolveJsonModule: true,
      moduleResolution: ts.ModuleResolutionKind.Node10,
    };
    const info = ts.preProcessFile(text, true, true);
    for (const imp of info.importedFiles) {
      const spec = imp.fileName;
      let hit = ts.resolveModuleName(spec, abs, options, ts.sys).resolvedModule?.resolvedFileName;
      if (hit === undefined && !spec.startsWith('.') && !spec.startsWith('/')) {
        const parts = spec.split('/');
        const n = spec.startsWith('@') ? 2 : 1;
        const dir = workspaces.get(parts.slice(0, n).join('/'));
        if (dir !== undefined) {
          const sub = parts.slice(n).join('/');
          hit = ts.resolveModuleName(sub === '' ? '.' : `./${sub}`, join(dir, '__importer__.ts'), options, ts.sys)
            .resolvedModule?.resolvedFileName;
        }
      }
      const targets = inside(hit).filter((t) => t !== f);
      items.push({ from: f, targets: new Set(targets) });
    }
  }
  return {
    tool: `TypeScript ${ts.version} preProcessFile + resolveModuleName (Node10, allowJs, nearest tsconfig), workspace packages linked`,
    scope: new Set(files),
    items,
  };
}
