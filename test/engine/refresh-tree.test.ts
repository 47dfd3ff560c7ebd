/**
 * Engine.refreshTree: the walk of a tree whose files changed only in content keeps its files and import index, with
 * the sizes read again; a change to a file the index read makes it walk again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../engine/index.ts';
import type { FileAnalysis } from '../../engine/types.ts';

describe('refreshing the walk of a tree after content edits', () => {
  const engine = createEngine({ threads: 1 });
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'ckg-refresh-'));
    mkdirSync(join(root, 'pkg'));
    writeFileSync(join(root, 'pkg/__init__.py'), '');
    writeFileSync(join(root, 'pkg/a.py'), 'from . import b\n');
    writeFileSync(join(root, 'pkg/b.py'), 'X = 1\n');
    writeFileSync(join(root, 'package.json'), '{"name": "p", "main": "index.js"}\n');
    writeFileSync(join(root, 'index.js'), "require('./lib');\n");
    writeFileSync(join(root, 'lib.js'), 'module.exports = 1;\n');
    symlinkSync('b.py', join(root, 'pkg/alias.py'));
  });
  after(async () => {
    await engine.close();
    rmSync(root, { recursive: true, force: true });
  });

  const sizes = (files: readonly { path: string; size: number }[]) =>
    Object.fromEntries(files.map((f) => [f.path, f.size]));

  it('keeps the files and index, reads the sizes of edited and symlinked files again, and analyses the same', async () => {
    const tree = engine.openTree(root);
    appendFileSync(join(root, 'pkg/b.py'), 'Y = 2\nZ = 3\n');
    const refreshed = engine.refreshTree(tree, new Set(['pkg/b.py']));
    assert.ok(refreshed);
    assert.equal(refreshed.repo, tree.repo, 'the import index (and what it remembers) is kept');
    assert.deepEqual(
      refreshed.files.map((f) => f.path),
      tree.files.map((f) => f.path),
    );
    const walked = engine.openTree(root);
    assert.deepEqual(sizes(refreshed.files), sizes(walked.files));
    assert.notEqual(sizes(tree.files)['pkg/alias.py'], sizes(walked.files)['pkg/alias.py'], 'the symlink follows b.py');
    // Analysing the refreshed walk gives what a new walk gives.
    const analyse = async (t: typeof tree) => {
      const out: FileAnalysis[] = [];
      for await (const a of engine.analyzeFiles(t, t.files)) out.push(a);
      return out
        .map((a) => ({ path: a.file_path, hash: a.content_hash, deps: a.dependencies }))
        .sort((x, y) => (x.path < y.path ? -1 : 1));
    };
    assert.deepEqual(await analyse(refreshed), await analyse(walked));
  });

  it('walks again when a file the index read changed, or an edited file is gone', () => {
    const tree = engine.openTree(root);
    assert.equal(engine.refreshTree(tree, new Set(['package.json'])), null);
    rmSync(join(root, 'lib.js'));
    assert.equal(engine.refreshTree(tree, new Set(['lib.js'])), null);
    // Files outside the tree's walk or unknown to it change nothing.
    assert.ok(engine.refreshTree(tree, new Set(['not/there.py'])));
  });
});
