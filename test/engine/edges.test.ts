/**
 * Dependency edges, one small repository per class of import that a resolver gets wrong (issue 16): each folder
 * under test/fixtures/engine/edges holds the repository and an EDGES file listing every expected `from -> to`
 * edge of the whole tree; the engine's depends_on must be exactly that set.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../engine/index.ts';

const DIR = fileURLToPath(new URL('../fixtures/engine/edges/', import.meta.url));

function expected(repo: string): string[] {
  return readFileSync(`${DIR}${repo}/EDGES`, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .sort();
}

const engine = createEngine({ threads: 1 });
after(() => engine.close());

for (const repo of readdirSync(DIR).sort()) {
  test(`depends_on edges: ${repo}`, async () => {
    const edges: string[] = [];
    for await (const a of engine.analyzeTree(DIR + repo)) {
      for (const d of a.dependencies) edges.push(`${a.file_path} -> ${d.target_path}`);
    }
    assert.deepEqual(edges.sort(), expected(repo));
  });
}
