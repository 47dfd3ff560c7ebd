import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../engine/index.ts';
import type { Engine, FileAnalysis } from '../../engine/index.ts';
import { SYMBOL_REPOS_DIR, symbolRepos } from './symbols.ts';

async function analyses(engine: Engine, root: string, symbolFacts: boolean): Promise<FileAnalysis[]> {
  const tree = engine.openTree(root);
  const out: FileAnalysis[] = [];
  for await (const a of engine.analyzeFiles(tree, tree.files, { symbolFacts })) out.push(a);
  return out.sort((x, y) => (x.file_path < y.file_path ? -1 : 1));
}

// `symbol_graph: false` (docs/pipeline.md): the engine leaves out the facts but keeps every symbol as it is, keys
// included (Go methods keyed under their receiver, Java overloads by parameter types: both come from the facts query).
test('without symbol facts every symbol and key stays the same, in every language with a symbol graph', async () => {
  // One engine for every repository and both settings (the option is per call): grammars load once.
  const engine = createEngine({ threads: 1 });
  try {
    for (const repo of symbolRepos()) {
      const root = SYMBOL_REPOS_DIR + repo;
      const [on, off] = [await analyses(engine, root, true), await analyses(engine, root, false)];
      assert.ok(
        on.some((a) => a.symbol_facts !== undefined),
        `${repo}: facts with the default`,
      );
      assert.deepEqual(
        off.map((a) => a.symbol_facts),
        off.map(() => undefined),
        `${repo}: no facts`,
      );
      assert.deepEqual(
        off.map((a) => [a.file_path, a.symbols]),
        on.map((a) => [a.file_path, a.symbols]),
        `${repo}: same symbols`,
      );
    }
  } finally {
    await engine.close();
  }
});
