import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import type { Truth } from './types.ts';
import { walkFiles } from './walk.ts';

const SOURCE = /\.(m|c)?(j|t)sx?$/;

/** Every module specifier of a file, read with the TypeScript parser: import/export ... from, import x = require(),
 * require() and import() with a string literal. Type-only imports count. */
function moduleSpecifiers(path: string, text: string): string[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (ts.isStringLiteral(e)) out.push(e.text);
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1) {
      const arg = node.arguments[0]!;
      const callee = node.expression;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      if ((isRequire || isImport) && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg)))
        out.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/**
 * The TypeScript compiler's own parser (import/export-from, import = require, require(), import()) and
 * module resolver (ts.resolveModuleName under Node10 rules: files, extensions, package.json types/main, index files;
 * and under Bundler rules: package.json exports with the import or require condition; tsconfig baseUrl/paths of the
 * nearest tsconfig.json/jsconfig.json), and for JavaScript importers Node's require.resolve (the file that runs). Workspace packages are resolved as if linked
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
    const base: ts.CompilerOptions = { ...(config?.options ?? {}), allowJs: true, resolveJsonModule: true };
    // TypeScript's two standard settings: Node10 (package.json types/main, no exports) and Bundler (exports with the
    // import or require conditions, as the syntax says); for a JavaScript importer also Node's own CommonJS
    // resolver, the file that runs (TypeScript prefers a .d.ts beside it). Any of their answers satisfies the import.
    const modes: Array<[ts.CompilerOptions, ts.ResolutionMode]> = [
      [{ ...base, moduleResolution: ts.ModuleResolutionKind.Node10 }, undefined],
      [
        { ...base, moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext },
        ts.ModuleKind.ESNext,
      ],
      [
        { ...base, moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext },
        ts.ModuleKind.CommonJS,
      ],
    ];
    const isJs = !/\.(m|c)?tsx?$/.test(f);
    for (const spec of moduleSpecifiers(f, text)) {
      const hits = new Set<string>();
      const parts = spec.split('/');
      const n = spec.startsWith('@') ? 2 : 1;
      const bare = !spec.startsWith('.') && !spec.startsWith('/');
      const workspace = bare ? workspaces.get(parts.slice(0, n).join('/')) : undefined;
      const sub = parts.slice(n).join('/');
      for (const [options, mode] of modes) {
        let hit = ts.resolveModuleName(spec, abs, options, ts.sys, undefined, undefined, mode).resolvedModule
          ?.resolvedFileName;
        if (hit === undefined && workspace !== undefined) {
          // Linked into node_modules: resolved from the package itself (TypeScript reads its exports self-reference).
          hit =
            ts.resolveModuleName(spec, join(workspace, '__importer__.ts'), options, ts.sys, undefined, undefined, mode)
              .resolvedModule?.resolvedFileName ??
            ts.resolveModuleName(sub === '' ? '.' : `./${sub}`, join(workspace, '__importer__.ts'), options, ts.sys)
              .resolvedModule?.resolvedFileName;
        }
        if (hit !== undefined) hits.add(hit);
      }
      if (isJs && (!bare || workspace !== undefined)) {
        try {
          hits.add(createRequire(bare ? join(workspace!, '__importer__.js') : abs).resolve(spec));
        } catch {
          // not resolvable by Node
        }
      }
      const targets = [...hits].flatMap(inside).filter((t) => t !== f);
      items.push({ from: f, targets: new Set(targets) });
    }
  }
  return {
    tool: `TypeScript ${ts.version} parser + resolveModuleName (Node10, and Bundler with import and require conditions; allowJs, nearest tsconfig), and Node's require.resolve for JS importers; workspace packages linked; any answer satisfies`,
    scope: new Set(files),
    items,
    // The resolver answers for modules only: engine edges to stylesheets, images and other assets (bundler imports,
    // kept by the engine as real file dependencies) are outside the comparison.
    targetFilter: (t, language) => language === 'javascript' || language === 'typescript' || t.endsWith('.json'),
  };
}
