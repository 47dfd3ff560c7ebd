/**
 * Records the workflow histories the replay test (test/pipeline/replay.test.ts) replays: a completed sync of a
 * two-batch repository, a failed sync (clone refused), and the schedules' trigger workflow starting a sync. Run it
 * against the local stack when a workflow change is meant to change histories (then say so in the commit):
 *
 *   set -a; source .stack/env; set +a; node --import tsx scripts/capture-histories.ts
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { createRepo, generatedFiles } from '../test/support/git-repos.ts';
import { createHarness, insertPendingSync, insertSource, startSync } from '../test/support/pipeline.ts';
import { SCHEDULED_SYNC_WORKFLOW_TYPE } from '../workflows/sync-contract.ts';

const OUT = new URL('../test/fixtures/histories/', import.meta.url);
const CLI =
  process.env.TEMPORAL_CLI ??
  join(process.env.CKG_CACHE_DIR ?? join(homedir(), '.cache', 'ckg'), 'temporal-1.9.1', 'bin', 'temporal');

async function save(name: string, handle: WorkflowHandle): Promise<void> {
  await handle.result().catch(() => undefined);
  // The CLI's JSON is the form Temporal's own tools export and historyFromJSON reads.
  const json = execFileSync(
    CLI,
    [
      'workflow',
      'show',
      '--address',
      process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
      '--namespace',
      process.env.TEMPORAL_NAMESPACE ?? 'default',
      '--workflow-id',
      handle.workflowId,
      '--output',
      'json',
    ],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  writeFileSync(new URL(`${name}.json`, OUT), json);
  console.log(`${name}: ${(JSON.parse(json) as { events: unknown[] }).events.length} events`);
}

async function main() {
  const h = await createHarness();
  const repo = createRepo(generatedFiles(700));
  try {
    await h.startWorker();
    const ok = await insertSource(h.db.pool, { url: repo.dir, owner: 'acme', name: 'demo' });
    await save('sync-completed', await startSync(h, ok, await insertPendingSync(h.db.pool, ok)));

    const bad = await insertSource(h.db.pool, { url: '/nonexistent/repository', owner: 'acme', name: 'gone' });
    await save('sync-failed', await startSync(h, bad, await insertPendingSync(h.db.pool, bad)));

    const src = await insertSource(h.db.pool, { url: repo.dir, owner: 'acme', name: 'scheduled' });
    const sched = await h.db.pool.query<{ id: string }>(
      `INSERT INTO schedules (source_id, interval_minutes) VALUES ($1, 60) RETURNING id`,
      [src],
    );
    const trigger = await h.client.workflow.start(SCHEDULED_SYNC_WORKFLOW_TYPE, {
      taskQueue: h.taskQueue,
      workflowId: `sched-capture-${sched.rows[0]!.id}`,
      args: [{ scheduleId: Number(sched.rows[0]!.id), sourceId: src }],
    });
    await save('scheduled-trigger', trigger);
    await h.client.workflow.getHandle(src).result();
  } finally {
    await h.close();
    repo.remove();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
