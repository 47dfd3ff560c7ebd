/**
 * Production functions longer than a limit (issue 34: "no production function over 120 lines other than data
 * literals"). Reads the production folders with TypeScript's parser; a function's length is its lines from its
 * first to its last, less the lines of the object and array literals inside it that hold no function (data), so a
 * table does not count and a handler does.
 *
 *   node --import tsx scripts/long-functions.ts [--max 120]
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { ROOT, productionFiles } from './production-files.ts';

const argMax = process.argv.indexOf('--max');
const MAX = argMax > 0 ? Number(process.argv[argMax + 1]) : 120;

function containsFunction(node: ts.Node): boolean {
  let found = false;
  const visit = (n: ts.Node) => {
    if (found) return;
    if (ts.isFunctionLike(n)) found = true;
    else ts.forEachChild(n, visit);
  };
  ts.forEachChild(node, visit);
  return found;
}

function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const p = node.parent;
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p))
    return p.name.getText(source);
  if (ts.isCallExpression(p)) return `(argument of ${p.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

const found: Array<{ where: string; name: string; lines: number }> = [];
for (const file of productionFiles()) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = line(node.getStart(source));
      const end = line(node.getEnd());
      let data = 0;
      const literals = (n: ts.Node) => {
        if ((ts.isObjectLiteralExpression(n) || ts.isArrayLiteralExpression(n)) && !containsFunction(n)) {
          data += line(n.getEnd()) - line(n.getStart(source));
          return;
        }
        if (ts.isFunctionLike(n) && n !== node) return; // nested functions count on their own
        ts.forEachChild(n, literals);
      };
      ts.forEachChild(node.body, literals);
      const lines = end - start + 1 - data;
      if (lines > MAX) found.push({ where: `${relative(ROOT, file)}:${start + 1}`, name: nameOf(node, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
found.sort((a, b) => b.lines - a.lines);
for (const f of found) console.log(`${f.lines}\t${f.where}\t${f.name}`);
if (found.length > 0) process.exit(1);
