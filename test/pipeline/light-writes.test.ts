/**
 * The parses and writes of a light tree (nearly every file unchanged since the previous sync) run two at a time, each
 * write in its own transaction, and the sync still equals a full sync of the same commit: the history shows the
 * second parse and the second write scheduled while the first runs, and the rows, chunks, vertices and edges are those of the full sync. (The clone's
 * release runs beside the resolve in every sync; checked here too.)
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { temporal } from '@temporalio/proto';
import { addCommit, createRepo, generatedFiles, type TestRepo } from '../support/git-repos.ts';
import { createHarness, insertPendingSync, insertSource, startSync, type Harness } from '../support/pipeline.ts';
import { syncSnapshot } from '../support/sync-snapshot.ts';
import type { CloneResult, IncrementalStats } from '../../workflows/sync-types.ts';

type Event = temporal.api.history.v1.IHistoryEvent;

const decode = (p: { data?: Uint8Array | null } | undefined): unknown =>
  JSON.parse(Buffer.from(p!.data!).toString('utf8'));

interface Activity {
  type: string;
  scheduledId: number;
  completedId: number | null;
  input: { batch?: number };
  result: unknown;
}

function activities(events: Event[]): Activity[] {
  const byId = new Map<number, Activity>();
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) {
      const id = Number(e.eventId);
      byId.set(id, {
        type: s.activityType!.name!,
        scheduledId: id,
        completedId: null,
        input: decode(s.input!.payloads![0]) as { batch?: number },
        result: null,
      });
    }
    const done = e.activityTaskCompletedEventAttributes;
    if (done) {
      const a = byId.get(Number(done.scheduledEventId))!;
      a.completedId = Number(e.eventId);
      a.result = done.result?.payloads?.[0] ? decode(done.result.payloads[0]) : null;
    }
  }
  return [...byId.values()];
}

describe('writes of a light tree run two at a time', () => {
  let h: Harness;
  let repo: TestRepo;
  before(async () => {
    // Batches of 100 files (the worker's SYNC_BATCH_FILES): 240 files are three batches of a full sync, and a tree
    // of two batches' worth or more is split when light.
    h = await createHarness({ batchFiles: 100 });
    await h.startWorker();
    repo = createRepo(generatedFiles(240));
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  async function sync(sourceId: string): Promise<{ syncId: string; steps: Activity[] }> {
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const handle = await startSync(h, sourceId, syncId);
    const result = await handle.result();
    assert.equal(result.status, 'completed', JSON.stringify(result));
    return { syncId, steps: activities((await handle.fetchHistory()).events ?? []) };
  }

  it('a re-sync after one change writes its two batches side by side and equals a full sync', async () => {
    const incremental = await insertSource(h.db.pool, {
      url: repo.dir,
      name: 'light',
      config: { embeddings: false },
    });
    const full = await insertSource(h.db.pool, {
      url: repo.dir,
      name: 'light-full',
      config: { embeddings: false, incremental: false },
    });
    const first = await sync(incremental);
    const firstClone = first.steps.find((a) => a.type === 'cloneRepository')!.result as CloneResult;
    assert.equal(firstClone.writeConcurrency, undefined, 'a full sync writes one batch at a time');
    assert.equal(firstClone.batches, 3);
    assert.equal(firstClone.walk, 'walked');

    addCommit(repo, {
      'src/m7.ts':
        'export function f7(x: number): number {\n  return x * 7;\n}\n\nexport function g7(): number {\n  return 7;\n}\n',
    });
    const light = await sync(incremental);
    const clone = light.steps.find((a) => a.type === 'cloneRepository')!.result as CloneResult;
    assert.equal(clone.writeConcurrency, 2);
    assert.equal(clone.batches, 2);
    assert.equal(clone.walk, 'refreshed', "only a file's content changed: the kept clone's walk is refreshed");
    const parses = light.steps.filter((a) => a.type === 'parseBatch');
    assert.deepEqual(
      parses.map((p) => p.input.batch),
      [0, 1],
    );
    assert.ok(parses[1]!.scheduledId < parses[0]!.completedId!, 'the second parse starts with the first');
    const writes = light.steps.filter((a) => a.type === 'writeBatch');
    assert.deepEqual(
      writes.map((w) => w.input.batch),
      [0, 1],
    );
    assert.ok(
      writes[1]!.scheduledId < writes[0]!.completedId!,
      'the second write is scheduled before the first completes',
    );
    const release = light.steps.find((a) => a.type === 'releaseWorkspace')!;
    const resolve = light.steps.find((a) => a.type === 'resolveDependencies')!;
    assert.ok(resolve.scheduledId < release.completedId!, 'the resolve is scheduled beside the release');
    const stats = (
      await h.db.pool.query<{ stats: { incremental: IncrementalStats } }>(`SELECT stats FROM sync_runs WHERE id = $1`, [
        light.syncId,
      ])
    ).rows[0]!.stats.incremental;
    assert.deepEqual([stats.reused, stats.changed, stats.added, stats.removed], [239, 1, 0, 0]);

    const reference = await sync(full);
    const [x, y] = [await syncSnapshot(h.db.pool, light.syncId), await syncSnapshot(h.db.pool, reference.syncId)];
    for (const key of Object.keys(x) as Array<keyof typeof x>) assert.deepEqual(x[key], y[key], `${key} differ`);
    assert.equal(x.files.length, 240);
    // Three symbols in each generated file but the changed one (two), which no longer imports its predecessor.
    assert.deepEqual([x.defines.length, x.dependsOn.length], [3 * 239 + 2, 238]);

    // The same commit again: the kept clone's walk serves as it is, and the sync is the same again.
    const again = await sync(incremental);
    assert.equal((again.steps.find((a) => a.type === 'cloneRepository')!.result as CloneResult).walk, 'kept');
    const z = await syncSnapshot(h.db.pool, again.syncId);
    for (const key of Object.keys(x) as Array<keyof typeof x>) assert.deepEqual(z[key], x[key], `${key} differ`);
  });
});
