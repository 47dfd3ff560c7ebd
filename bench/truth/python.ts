import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Truth } from './types.ts';
import { parseJsonLines } from './types.ts';

const SCRIPT = fileURLToPath(new URL('./python_edges.py', import.meta.url));

/** CPython's ast and importlib PathFinder (python_edges.py) over the stated sys.path. */
export function pythonTruth(root: string): Truth {
  const out = execFileSync('python3', [SCRIPT, root], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const rows = parseJsonLines(out);
  const scope = new Set<string>();
  const list = execFileSync('python3', ['-c', FILES, root], { encoding: 'utf8', maxBuffer: 1 << 28 });
  for (const f of list.split('\n')) if (f) scope.add(f);
  return {
    tool: `CPython ${execFileSync('python3', ['--version'], { encoding: 'utf8' }).trim()} ast + importlib.machinery.PathFinder; sys.path = script dir (outside packages), top-package parent, root, [stdlib], enclosing projects (+src), src, lib, other projects`,
    scope,
    items: rows.map((r) => ({ from: r.from, targets: new Set(r.targets) })),
  };
}

const FILES = `
import os, sys
root = sys.argv[1]
for d, subs, names in os.walk(root):
    subs[:] = [s for s in subs if not s.startswith('.') and s not in ('node_modules', '__pycache__')]
    for n in names:
        if n.endswith('.py'):
            print(os.path.relpath(os.path.join(d, n), root))
`;
