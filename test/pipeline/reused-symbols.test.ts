/**
 * The symbols of reused files (issue 12): an incremental sync's write batches leave the Symbol vertices and defines
 * edges of the files they reuse to writeReusedSymbols, which the workflow runs in parts at once beside the steps
 * after the batches. What they write must equal a full sync's, each part once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRepo, type TestRepo } from '../support/git-repos.ts';
import { createHarness, insertPendingSync, insertSource, runSync, type Harness } from '../support/pipeline.ts';
import { syncSnapshot } from '../support/sync-snapshot.ts';
import { REUSED_SYMBOL_PARTS, REUSED_SYMBOLS_PER_PART } from '../../workflows/sync-contract.ts';

// More reused files than one part takes, so the no-change sync writes their symbols in every part.
const FILE_COUNT = REUSED_SYMBOLS_PER_PART + 150;

function tree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < FILE_COUNT; i++) {
    const n = String(i).padStart(4, '0');
    files[`pkg/m${n}.py`] =
      `def f${n}():\n    return ${i}\n\n\nclass C${n}:\n    def run(self):\n        return f${n}()\n`;
  }
  return files;
}

describe('symbols of reused files, written in parts', () => {
  let h: Harness;
  let repo: TestRepo;
  let incremental: string;
  let full: string;

  before(async () => {
    h = await createHarness();
    await h.startWorker();
    repo = createRepo(tree());
    incremental = await insertSource(h.db.pool, { url: repo.dir, name: 'incremental', config: { embeddings: false } });
    full = await insertSource(h.db.pool, {
      url: repo.dir,
      name: 'full',
      config: { embeddings: false, incremental: false },
    });
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  async function sync(sourceId: string): Promise<string> {
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const result = await runSync(h, sourceId, syncId);
    assert.equal(result.status, 'completed', JSON.stringify(result));
    return syncId;
  }

  it('an unchanged tree: every reused file gets its symbols from one part, and the graph equals a full sync', async () => {
    await sync(incremental);
    const again = await sync(incremental);
    const reference = await sync(full);

    const steps = await h.db.pool.query<{ step: string; files: number; defines: number }>(
      `SELECT step, (result ->> 'files')::int AS files, (result ->> 'definesEdges')::int AS defines
         FROM sync_steps WHERE sync_id = $1 AND step LIKE 'symbols %' ORDER BY step`,
      [again],
    );
    assert.deepEqual(
      steps.rows.map((r) => r.step),
      Array.from({ length: REUSED_SYMBOL_PARTS }, (_, p) => `symbols ${p}/${REUSED_SYMBOL_PARTS}`),
    );
    assert.equal(
      steps.rows.reduce((n, r) => n + r.files, 0),
      FILE_COUNT,
      'each reused file in exactly one part',
    );
    for (const r of steps.rows) assert.ok(r.files > 0 && r.defines >= 3 * r.files, JSON.stringify(r));

    const [x, y] = [await syncSnapshot(h.db.pool, again), await syncSnapshot(h.db.pool, reference)];
    for (const key of Object.keys(x) as Array<keyof typeof x>) assert.deepEqual(x[key], y[key], `${key} differ`);
    assert.equal(x.symbolVertices.length, 3 * FILE_COUNT);

    // The run's stats count what the parts wrote, as a full sync's count what its batches wrote.
    const stats = await h.db.pool.query<{ id: string; vertices: number; defines: number }>(
      `SELECT id, (stats ->> 'vertices')::int AS vertices, (stats -> 'edges' ->> 'defines')::int AS defines
         FROM sync_runs WHERE id = ANY($1::uuid[])`,
      [[again, reference]],
    );
    const byId = new Map(stats.rows.map((r) => [r.id, [r.vertices, r.defines]]));
    assert.deepEqual(byId.get(again), byId.get(reference));
    assert.deepEqual(byId.get(again), [4 * FILE_COUNT, 3 * FILE_COUNT]);

    // What only the parts needed is gone from the ledger once the sync completed.
    const left = await h.db.pool.query(`SELECT 1 FROM sync_steps WHERE sync_id = $1 AND handoff ? 'reused_vertices'`, [
      again,
    ]);
    assert.equal(left.rowCount, 0);
  });
});
