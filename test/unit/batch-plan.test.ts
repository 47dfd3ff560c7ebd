import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BATCH_FILES, batchPlan } from '../../activities/sync/helpers/workspace.ts';
import type { DiscoveredFile } from '../../engine/types.ts';
import { count } from '../../workflows/sync-options.ts';

const tree = (n: number): DiscoveredFile[] =>
  Array.from({ length: n }, (_, i) => ({ path: `f${String(i).padStart(6, '0')}`, absolute: `/t/f${i}`, size: 1 }));

/** Per batch: [files, symbols of its unchanged files, files to analyse]. */
function shape(
  files: DiscoveredFile[],
  bounds: number[],
  light: (p: string) => { symbols: number } | undefined,
): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  for (let b = 0; b + 1 < bounds.length; b++) {
    const slice = files.slice(bounds[b], bounds[b + 1]);
    out.push([
      slice.length,
      slice.reduce((a, f) => a + (light(f.path)?.symbols ?? 0), 0),
      slice.filter((f) => !light(f.path)).length,
    ]);
  }
  return out;
}

describe('batch plan of a sync', () => {
  it('a full sync: batches of BATCH_FILES files, written one at a time', () => {
    const files = tree(2100);
    const plan = batchPlan(files, () => undefined);
    assert.equal(plan.writeConcurrency, 1);
    assert.deepEqual(plan.bounds, [0, 500, 1000, 1500, 2000, 2100]);
  });

  it("the worker's batch size (SYNC_BATCH_FILES) cuts the same shapes at its scale", () => {
    // A full sync: batches of the set size.
    assert.deepEqual(batchPlan(tree(420), () => undefined, 100).bounds, [0, 100, 200, 300, 400, 420]);
    // Fewer than two batches' worth of files: one write, however light.
    assert.deepEqual(
      batchPlan(tree(199), () => ({ symbols: 30 }), 100),
      { bounds: [0, 199], writeConcurrency: 1 },
    );
    // Two batches' worth with one file to analyse: light, two writes at a time.
    const light = (p: string) => (p === 'f000007' ? undefined : { symbols: 3 });
    const plan = batchPlan(tree(240), light, 100);
    assert.equal(plan.writeConcurrency, 2);
    assert.equal(plan.bounds.length, 3);
    // More files to analyse than one batch holds: one write at a time, each batch within the size.
    const some = (p: string) => (Number(p.slice(1)) % 2 === 0 ? undefined : { symbols: 3 });
    const mixed = batchPlan(tree(600), some, 100);
    assert.equal(mixed.writeConcurrency, 1);
    for (const [, , analysed] of shape(tree(600), mixed.bounds, some)) assert.ok(analysed <= 100);
  });

  it('a small unchanged tree stays one write', () => {
    const files = tree(999);
    const plan = batchPlan(files, () => ({ symbols: 30 }));
    assert.deepEqual(plan, { bounds: [0, 999], writeConcurrency: 1 });
  });

  it('more files to analyse than one batch holds: one write at a time, unchanged files a tenth of one to analyse', () => {
    const files = tree(3000);
    // Every fifth file changed: 600 to analyse.
    const light = (p: string) => (Number(p.slice(1)) % 5 === 0 ? undefined : { symbols: 10 });
    const plan = batchPlan(files, light);
    assert.equal(plan.writeConcurrency, 1);
    for (const [, , analysed] of shape(files, plan.bounds, light)) assert.ok(analysed <= BATCH_FILES);
    assert.equal(plan.bounds.at(-1), 3000);
  });

  it('an unchanged tree: an even number of batches of equal write cost, two writes at a time', () => {
    const files = tree(2450);
    // Like CPython: the second half of the paths (its tests) holds most symbols.
    const light = (p: string) => ({ symbols: Number(p.slice(1)) < 1225 ? 4 : 54 });
    const plan = batchPlan(files, light);
    assert.equal(plan.writeConcurrency, 2);
    assert.equal(plan.bounds.length, 3);
    const [a, b] = shape(files, plan.bounds, light).map(([n, symbols]) => 5 * n + symbols);
    assert.ok(Math.abs(a! - b!) / (a! + b!) < 0.02, `write costs ${a} and ${b} are even`);
    assert.deepEqual([plan.bounds[0], plan.bounds.at(-1)], [0, 2450]);
  });

  it('a large unchanged tree with a few changed files: more batches, still an even count', () => {
    const files = tree(11_500);
    const light = (p: string) => (Number(p.slice(1)) % 1000 === 7 ? undefined : { symbols: 9 });
    const plan = batchPlan(files, light);
    assert.equal(plan.writeConcurrency, 2);
    // 11,500 units of a tenth: three batches of the one-at-a-time rule, rounded up to four.
    assert.equal(plan.bounds.length - 1, 4);
    const costs = shape(files, plan.bounds, light).map(([n, symbols, analysed]) => 5 * n + symbols + 345 * analysed);
    const mean = costs.reduce((x, y) => x + y, 0) / costs.length;
    for (const c of costs) assert.ok(Math.abs(c - mean) / mean < 0.02, `write costs ${costs.join(', ')} are even`);
    // Every file in exactly one batch, in order.
    for (let i = 1; i < plan.bounds.length; i++) assert.ok(plan.bounds[i]! > plan.bounds[i - 1]!);
  });

  it("the batches' activity summaries count files with thousands separators", () => {
    // 'parse 1,100 files, batch 3/3 (files 1,001-1,100)' (test/pipeline/operator-view.test.ts checks the summaries).
    assert.deepEqual([220, 1001, 1100, 11_478, 1_234_567].map(count), ['220', '1,001', '1,100', '11,478', '1,234,567']);
  });
});
