import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Truth } from './types.ts';
import { parseJsonLines } from './types.ts';

const SOURCE = fileURLToPath(new URL('./JavaImports.java', import.meta.url));

/**
 * javac's own parser (JavacTask.parse, com.sun.source tree API; run with the JDK's source launcher): the tree's
 * classes are indexed by their declared package and top-level type names, not by path; a single-type or static
 * import resolves to the file declaring that class (nested classes to their top-level class); an on-demand
 * import `p.*` is satisfied by any file of package p. Same-package references without an import are not
 * imports and are not compared (docs/engine.md).
 */
export function javaTruth(root: string): Truth {
  const out = execFileSync('java', [SOURCE, root], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const rows = parseJsonLines(out);
  const scope = new Set<string>();
  const items: Truth['items'] = [];
  for (const r of rows) {
    scope.add(r.from);
    if (r.targets.length > 0 || r.from !== '') items.push({ from: r.from, targets: new Set(r.targets) });
  }
  return { tool: 'javac tree API (JavacTask.parse) with a package/type index of the tree', scope, items };
}
