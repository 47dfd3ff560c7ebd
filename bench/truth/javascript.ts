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
    for (const spec of moduleSpecifiers(f, text)) {
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
      if (hit === undefined && !/\.(m|c)?tsx?$/.test(f) && (spec.startsWith('.') || spec.startsWith('/'))) {
        // A JavaScript importer: Node's own CommonJS resolver (TypeScript does not add `.json` to a specifier).
        try {
          hit = createRequire(abs).resolve(spec);
        } catch {
          // not resolvable by Node either
        }
      }
      const targets = inside(hit).filter((t) => t !== f);
      items.push({ from: f, targets: new Set(targets) });
    }
  }
  return {
    tool: `TypeScript ${ts.version} parser + resolveModuleName (Node10, allowJs, nearest tsconfig), then Node's require.resolve for JS importers; workspace packages linked`,
    scope: new Set(files),
    items,
    // The resolver answers for modules only: engine edges to stylesheets, images and other assets (bundler imports,
    // kept by the engine as real file dependencies) are outside the comparison.
    targetFilter: (t, language) => language === 'javascript' || language === 'typescript' || t.endsWith('.json'),
  };
}
