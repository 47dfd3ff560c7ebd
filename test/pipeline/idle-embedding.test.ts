/**
 * A re-sync whose writes leave nothing to embed runs no embedding steps, and reports what they would have: every
 * chunk embedded, no file text sent. A reused file whose chunk vectors the model host could not give before still
 * sends the sync through embedChunks, which fills exactly those.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRepo, type TestRepo } from '../support/git-repos.ts';
import { createHarness, insertPendingSync, insertSource, startSync, type Harness } from '../support/pipeline.ts';

const FILES: Record<string, string> = {
  'src/a.ts': "import { b } from './b';\n\nexport function a(): number {\n  return b() + 1;\n}\n",
  'src/b.ts': 'export function b(): number {\n  return 2;\n}\n',
  'py/c.py': 'def c():\n    return 3\n\n\nclass D:\n    def e(self):\n        return c()\n',
  'docs/readme.md': '# Demo\n\nA small tree.\n\n## Usage\n\nRun it.\n',
};

interface Stats {
  chunks: number;
  embeddings: { files_embedded: number; files_failed: number; chunks_embedded: number; chunks_failed: number };
  incremental: { reused: number };
}

describe('embedding steps of a re-sync', () => {
  let h: Harness;
  let repo: TestRepo;
  let sourceId: string;
  before(async () => {
    h = await createHarness();
    await h.startWorker();
    repo = createRepo(FILES);
    sourceId = await insertSource(h.db.pool, { url: repo.dir, name: 'idle-embedding' });
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  async function sync(): Promise<{ syncId: string; activities: string[]; stats: Stats }> {
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const handle = await startSync(h, sourceId, syncId);
    const result = await handle.result();
    assert.equal(result.status, 'completed', JSON.stringify(result));
    const activities = ((await handle.fetchHistory()).events ?? [])
      .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
      .filter((x): x is string => typeof x === 'string');
    const run = await h.db.pool.query<{ stats: Stats }>(`SELECT stats FROM sync_runs WHERE id = $1`, [syncId]);
    return { syncId, activities, stats: run.rows[0]!.stats };
  }

  it('a first sync embeds; an unchanged re-sync runs no embedding step and reports every vector present', async () => {
    const first = await sync();
    assert.ok(first.activities.includes('embedFiles') && first.activities.includes('embedChunks'));
    assert.equal(first.stats.embeddings.files_embedded, Object.keys(FILES).length);

    h.modelHost.resetStats();
    const again = await sync();
    assert.equal(again.stats.incremental.reused, Object.keys(FILES).length);
    assert.ok(!again.activities.includes('embedFiles'), again.activities.join(', '));
    assert.ok(!again.activities.includes('embedChunks'), again.activities.join(', '));
    assert.equal(h.modelHost.stats().embeddings.inputs, 0);
    assert.deepEqual(again.stats.embeddings, {
      files_embedded: 0,
      files_failed: 0,
      chunks_embedded: first.stats.chunks,
      chunks_failed: 0,
      skipped: false,
    });
    const missing = await h.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM content_chunks WHERE sync_id = $1 AND embedding IS NULL`,
      [again.syncId],
    );
    assert.equal(missing.rows[0]!.n, 0);
  });

  it('chunks of a reused file left without vectors are embedded by the next sync', async () => {
    // The model host failed the chunk step of an earlier sync for one file (its file vector came through).
    const lost = await h.db.pool.query<{ n: number }>(
      `WITH c AS (
         UPDATE file_content_chunks k SET embedding = NULL
           FROM sync_files s
          WHERE s.sync_id = (SELECT id FROM sync_runs WHERE source_id = $1 AND status = 'completed'
                              ORDER BY created_at DESC LIMIT 1)
            AND s.file_path = 'py/c.py' AND k.content_id = s.content_id
         RETURNING k.id)
       SELECT count(*)::int AS n FROM c`,
      [sourceId],
    );
    const n = lost.rows[0]!.n;
    assert.ok(n > 0);
    h.modelHost.resetStats();
    const next = await sync();
    assert.equal(next.stats.incremental.reused, Object.keys(FILES).length, 'the file is still reused');
    assert.ok(next.activities.includes('embedChunks'), next.activities.join(', '));
    assert.equal(h.modelHost.stats().embeddings.inputs, n, 'exactly the chunks without a vector are sent');
    const missing = await h.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM content_chunks WHERE sync_id = $1 AND embedding IS NULL`,
      [next.syncId],
    );
    assert.equal(missing.rows[0]!.n, 0);
  });
});
