// The explorer's folder layout (web/src/layout.ts): one box per folder and source, every file inside its folder's
// box on a grid cell of its own, boxes apart from each other, sibling folders in path order.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CELL, computeLayout, folderOfPath, type LayoutNode } from '../../web/src/layout.ts';

const S1 = '11111111-1111-4111-8111-111111111111';
const S2 = '22222222-2222-4222-8222-222222222222';
const node = (source: string, path: string): LayoutNode => ({
  id: `src_${source}:${path}`,
  name: path.slice(path.lastIndexOf('/') + 1),
  source_id: source,
  file_path: path,
});

describe('explorer folder layout', () => {
  it('folderOfPath: the directory, or "." at the top', () => {
    assert.equal(folderOfPath('a/b/c.go'), 'a/b');
    assert.equal(folderOfPath('README.md'), '.');
  });

  it('puts every file in its own cell inside its folder box, boxes never overlap, folders in path order', () => {
    const nodes = [
      ...Array.from({ length: 40 }, (_, i) => node(S1, `net/http/f${i}.go`)),
      ...Array.from({ length: 7 }, (_, i) => node(S1, `net/url/u${i}.go`)),
      node(S1, 'README.md'),
      ...Array.from({ length: 3 }, (_, i) => node(S2, `net/http/g${i}.go`)),
    ];
    const { positions, folderOf, folders } = computeLayout(nodes, true);
    assert.equal(positions.size, nodes.length);
    assert.deepEqual(
      folders.map((f) => f.label),
      [
        `${S1.slice(0, 8)}: .`,
        `${S1.slice(0, 8)}: net/http`,
        `${S1.slice(0, 8)}: net/url`,
        `${S2.slice(0, 8)}: net/http`,
      ],
    );
    assert.deepEqual(
      folders.map((f) => f.count),
      [1, 40, 7, 3],
    );
    const cells = new Set([...positions.values()].map((p) => `${p.x},${p.y}`));
    assert.equal(cells.size, nodes.length, 'one cell per file');
    const byId = new Map(folders.map((f) => [f.id, f]));
    for (const n of nodes) {
      const p = positions.get(n.id)!;
      const f = byId.get(folderOf.get(n.id)!)!;
      assert.ok(f.label.endsWith(folderOfPath(n.file_path)), `${n.file_path} in ${f.label}`);
      assert.ok(Math.abs(p.x - f.x) < f.w / 2 - CELL / 2 + 1 && Math.abs(p.y - f.y) < f.h / 2, `${n.file_path} inside`);
    }
    for (const a of folders) {
      for (const b of folders) {
        if (a === b) continue;
        const apart = Math.abs(a.x - b.x) >= (a.w + b.w) / 2 || Math.abs(a.y - b.y) >= (a.h + b.h) / 2;
        assert.ok(apart, `${a.label} and ${b.label} overlap`);
      }
    }
  });

  it('a single source labels folders by path alone; 11k files in 4,200 folders each get a box', () => {
    const nodes = Array.from({ length: 11_000 }, (_, i) => node(S1, `pkg${i % 600}/sub${i % 7}/f${i}.go`));
    const { folders, positions } = computeLayout(nodes, false);
    assert.equal(positions.size, 11_000);
    assert.equal(folders.length, 4200, '600 × 7 combinations, all present among 11,000 files');
    assert.ok(folders.every((f) => !f.label.includes(':')));
  });
});
