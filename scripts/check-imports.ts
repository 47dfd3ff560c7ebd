/**
 * The house's import structure, checked (issue 34: "no folder imports from a folder that depends on it, except
 * types; 0 import cycles"). Reads every TypeScript file of the production folders with the compiler's parser (no
 * type check: ~1 s) and fails when
 *   - files import each other in a loop (any import, `import type` too), or
 *   - folders import each other at run time: top-level folders, and the sub-folders of one folder (the files
 *     directly in a folder are its front and may go both ways); `import type` may point back, since it leaves
 *     nothing at run time.
 * Tests, benchmarks and scripts import production code and are not checked.
 *
 *   node --import tsx scripts/check-imports.ts        (npm test runs it with lint)
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { PRODUCTION_FOLDERS, ROOT, productionFiles } from './production-files.ts';

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function importsOf(file: string, known: Set<string>): Edge[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const edges: Edge[] = [];
  const add = (spec: ts.Expression | undefined, typeOnly: boolean) => {
    if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) return;
    const target = resolve(dirname(file), spec.text).replace(/\.js$/, '.ts');
    if (known.has(target)) edges.push({ from: file, to: target, typeOnly });
  };
  for (const st of source.statements) {
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(st.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(st)) {
      const typeOnly =
        st.isTypeOnly ||
        (!!st.exportClause &&
          ts.isNamedExports(st.exportClause) &&
          st.exportClause.elements.length > 0 &&
          st.exportClause.elements.every((e) => e.isTypeOnly));
      add(st.moduleSpecifier, typeOnly);
    }
  }
  // import('...') in code (not in types) loads at run time too.
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      add(node.arguments[0], false);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** Strongly connected components with more than one member (Tarjan). */
function cycles(nodes: string[], next: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        on.delete(w);
        comp.push(w);
        if (w === v) break;
      }
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of nodes) if (!idx.has(v)) strong(v);
  return out;
}

/** The folder a file counts in: its top-level folder, or inside `within`, its sub-folder there. */
function folderOf(file: string, within?: string): string | undefined {
  const rel = relative(ROOT, file).split(sep);
  const top = PRODUCTION_FOLDERS.find((f) => relative(ROOT, file).startsWith(f + '/')) ?? rel[0]!;
  if (!within) return top;
  if (top !== within) return undefined;
  const rest = relative(join(ROOT, within), file).split(sep);
  // Files directly in `within` are its front (app, main, shared helpers): they may import its sub-folders and be
  // imported by them; the rule is between sibling sub-folders.
  return rest.length > 1 ? `${within}/${rest[0]}` : undefined;
}

const files = productionFiles();
const known = new Set(files);
const edges = files.flatMap((f) => importsOf(f, known));
const problems: string[] = [];

const fileNext = new Map<string, Set<string>>();
for (const e of edges) (fileNext.get(e.from) ?? fileNext.set(e.from, new Set()).get(e.from)!).add(e.to);
for (const c of cycles(files, fileNext)) {
  const names = c.map((f) => relative(ROOT, f));
  problems.push(`import cycle: ${names.join(' <-> ')}`);
}

for (const within of [undefined, ...PRODUCTION_FOLDERS]) {
  const next = new Map<string, Set<string>>();
  const why = new Map<string, string>();
  for (const e of edges) {
    if (e.typeOnly) continue;
    const a = folderOf(e.from, within);
    const b = folderOf(e.to, within);
    if (!a || !b || a === b) continue;
    (next.get(a) ?? next.set(a, new Set()).get(a)!).add(b);
    if (!why.has(`${a}>${b}`)) why.set(`${a}>${b}`, `${relative(ROOT, e.from)} -> ${relative(ROOT, e.to)}`);
  }
  for (const c of cycles([...next.keys()], next)) {
    const ties = c.flatMap((a) => c.filter((b) => next.get(a)?.has(b)).map((b) => why.get(`${a}>${b}`)!));
    problems.push(`folders import each other at run time: ${c.join(', ')} (${ties.join('; ')})`);
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
console.log(`imports: ${files.length} files, ${edges.length} imports, no cycle between files or folders`);
