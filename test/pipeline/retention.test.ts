/**
 * Retention of syncs (issue 30): the retention schedule the ingestion component keeps runs retentionWorkflow on the
 * worker; syncs past a source's window are cleaned (every graph label, including labels and per-sync tables added
 * after the function was written), pinned ones kept, cleaned ones purged after the delay, and a purged sync leaves
 * no row in any table or label.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@temporalio/client';
import { addCommit, createRepo, MULTI_LANGUAGE_FILES, type TestRepo } from '../support/git-repos.ts';
import { startIngestionComponent, type IngestionComponent } from '../support/ingestion-component.ts';
import { createHarness, insertPendingSync, insertSource, runSync, type Harness } from '../support/pipeline.ts';
import { waitFor } from '../support/wait.ts';
import type { RetentionInput } from '../../lib/retention.ts';
import type { Pool, Queryable } from '../../lib/db.ts';
import { loadSnapshot } from '../../graph-api/graph/snapshot.ts';
import { loadSymbolGraph } from '../../graph-api/symbols/snapshot.ts';
import { nodeDetailSql } from '../../graph-api/graph/node-queries.ts';
import { withReadTx, type ReadTx } from '../../graph-api/db/read.ts';
import {
  RETENTION_WORKFLOW_TYPE,
  retentionScheduleId,
  type RetentionResult,
} from '../../workflows/retention-contract.ts';

const agKey = (col = 'properties') =>
  `ag_catalog.agtype_access_operator(${col}, '"sync_id"'::ag_catalog.agtype) = ('"' || $1::text || '"')::ag_catalog.agtype`;

/** Rows of the sync in every label of the graph (enumerated from ag_catalog), by label. */
async function graphRows(db: Queryable, syncId: string): Promise<Record<string, number>> {
  const labels = await db.query<{ name: string }>(
    `SELECT l.name FROM ag_catalog.ag_label l JOIN ag_catalog.ag_graph g ON g.graphid = l.graph
      WHERE g.name = 'service' AND l.name NOT LIKE '\\_ag\\_label\\_%' ORDER BY l.name`,
  );
  const out: Record<string, number> = {};
  for (const { name } of labels.rows) {
    const r = await db.query<{ n: string }>(`SELECT count(*) AS n FROM service."${name}" WHERE ${agKey()}`, [syncId]);
    out[name] = Number(r.rows[0]!.n);
  }
  return out;
}

/** Rows naming the sync in every base table of the schema with a sync_id column (the event history aside). */
async function tableRows(db: Queryable, syncId: string): Promise<Record<string, number>> {
  const tables = await db.query<{ table_name: string }>(
    `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND c.column_name = 'sync_id' AND t.table_type = 'BASE TABLE'
        AND c.table_name <> 'events'
      ORDER BY 1`,
  );
  const out: Record<string, number> = {};
  for (const { table_name } of tables.rows) {
    const r = await db.query<{ n: string }>(`SELECT count(*) AS n FROM "${table_name}" WHERE sync_id = $1`, [syncId]);
    out[table_name] = Number(r.rows[0]!.n);
  }
  const run = await db.query<{ n: string }>(`SELECT count(*) AS n FROM sync_runs WHERE id = $1`, [syncId]);
  out.sync_runs = Number(run.rows[0]!.n);
  return out;
}

/** A ReadTx over the pool that records every statement it runs (text and parameters). */
function recording(db: Pool): { tx: ReadTx; seen: Array<{ text: string; params: unknown[] }> } {
  const seen: Array<{ text: string; params: unknown[] }> = [];
  const tx: ReadTx = {
    query: (sql, params = []) => {
      const text = typeof sql === 'string' ? sql : sql.text;
      seen.push({ text, params });
      return db.query(text, params);
    },
  };
  return { tx, seen };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Plan Rows': number;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** Scans of File vertices or file records (sync_files) in the statement's plan that estimate under half their rows. */
async function underestimated(db: Queryable, st: { text: string; params: unknown[] }): Promise<string[]> {
  const r = await db.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${st.text}`,
    st.params,
  );
  const out: string[] = [];
  const walk = (n: PlanNode): void => {
    const rel = n['Relation Name'];
    if ((rel === 'File' || rel === 'sync_files') && n['Actual Loops'] > 0) {
      const actual = n['Actual Rows'];
      if (actual > 2 && n['Plan Rows'] < actual / 2) {
        out.push(`${n['Node Type']} on ${rel}: estimated ${n['Plan Rows']} rows, returned ${actual}`);
      }
    }
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(r.rows[0]!['QUERY PLAN'][0]!.Plan);
  return out;
}

async function syncRow(
  db: Queryable,
  id: string,
): Promise<{ id: string; source_id: string; status: string; completed_at: Date | null }> {
  const r = await db.query<{ id: string; source_id: string; status: string; completed_at: Date | null }>(
    `SELECT id, source_id, status, completed_at FROM sync_runs WHERE id = $1`,
    [id],
  );
  return r.rows[0]!;
}

const total = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

async function status(db: Queryable, syncId: string): Promise<string | undefined> {
  const r = await db.query<{ status: string }>(`SELECT status FROM sync_runs WHERE id = $1`, [syncId]);
  return r.rows[0]?.status;
}

async function runRetention(client: Client, h: Harness, input: RetentionInput): Promise<RetentionResult> {
  return client.workflow.execute<(input: RetentionInput) => Promise<RetentionResult>>(RETENTION_WORKFLOW_TYPE, {
    taskQueue: h.taskQueue,
    workflowId: `retention-test-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    args: [input],
    workflowExecutionTimeout: '2 minutes',
  });
}

describe('retention of syncs', () => {
  let h: Harness;
  let repo: TestRepo;
  let ingestion: IngestionComponent;
  let sourceId: string;
  const completed: string[] = [];
  let failedOld: string;
  let failedNew: string;
  let cancelled: string;

  before(async () => {
    h = await createHarness();
    await h.startWorker();
    repo = createRepo(MULTI_LANGUAGE_FILES);
    // Keeps the retention schedule on the harness worker's queue; purge delay one hour (the default).
    ingestion = await startIngestionComponent(h.db.url, {
      TEMPORAL_TASK_QUEUE: h.taskQueue,
      RETENTION_INTERVAL_MINUTES: '60',
      RETENTION_KEEP_COMPLETED: '10',
    });
    sourceId = await insertSource(h.db.pool, {
      url: repo.dir,
      config: { retention: { keep_completed: 2, keep_failed: 1 } },
    });
    for (let i = 0; i < 4; i++) {
      if (i > 0)
        addCommit(repo, {
          [`src/extra${i}.ts`]: `export const v${i} = ${i};\n`,
          'src/util.ts': `export function helper(x: number): number {\n  return x * ${i + 2};\n}\n`,
        });
      const syncId = await insertPendingSync(h.db.pool, sourceId);
      assert.equal((await runSync(h, sourceId, syncId)).status, 'completed');
      completed.push(syncId);
    }
    // Failed and cancelled runs (older than the purge delay), ranked together: the newest failed one is kept.
    const ins = async (st: string, ageMinutes: number) =>
      (
        await h.db.pool.query<{ id: string }>(
          `INSERT INTO sync_runs (source_id, status, triggered_by, created_at, completed_at)
           VALUES ($1, $2, 'test', now() - make_interval(mins => $3), now() - make_interval(mins => $3 - 1)) RETURNING id`,
          [sourceId, st, ageMinutes],
        )
      ).rows[0]!.id;
    failedOld = await ins('failed', 300);
    cancelled = await ins('cancelled', 200);
    failedNew = await ins('failed', 100);
  });
  after(async () => {
    await h.client.schedule
      .getHandle(retentionScheduleId(ingestion.scheduleIdPrefix))
      .delete()
      .catch(() => undefined);
    await ingestion.close();
    await h.close();
    repo.remove();
  });

  it('a just-completed sync is in the statistics: its rows are estimated as they are, not as one', async () => {
    const newest = completed[3]!;
    const estimate = async (sql: string) => {
      const r = await h.db.pool.query<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(
        `EXPLAIN (FORMAT JSON) ${sql}`,
        [newest],
      );
      return r.rows[0]!['QUERY PLAN'][0]!.Plan['Plan Rows'];
    };
    const files = (await h.db.pool.query(`SELECT 1 FROM sync_files WHERE sync_id = $1`, [newest])).rowCount ?? 0;
    assert.ok(files > 3);
    const vertexRows = await estimate(`SELECT id FROM service."File" WHERE ${agKey()}`);
    const recordRows = await estimate(`SELECT id FROM sync_files WHERE sync_id = $1`);
    assert.ok(vertexRows >= files / 2, `File vertices of the new sync estimated at ${vertexRows} (actual ${files})`);
    assert.ok(recordRows >= files / 2, `file records of the new sync estimated at ${recordRows} (actual ${files})`);
  });

  it("a just-completed sync's file records are all-visible: search's index-only probe of them reads no table page", async () => {
    // Chunk search steps from a chunk to the searched syncs by an index-only scan of sync_files (content_id, sync_id);
    // a record on a page the visibility map does not mark all-visible costs a visit to the table. Nothing has written
    // sync_files since the newest sync completed, so every page of it is all-visible once finalize has vacuumed it
    // (pg_class's counts, written by that VACUUM (ANALYZE)).
    const r = await h.db.pool.query<{ relpages: number; relallvisible: number }>(
      `SELECT relpages, relallvisible FROM pg_class WHERE oid = 'sync_files'::regclass`,
    );
    const { relpages, relallvisible } = r.rows[0]!;
    assert.ok(relpages > 0);
    assert.equal(relallvisible, relpages, `${relallvisible} of ${relpages} pages of sync_files all-visible`);
  });

  it('a sync is marked completed only once its statistics are refreshed: nothing of it runs after the completion', async () => {
    // The completed status is what the next sync of the source waits for (its workflow, id = source id, must have
    // closed: 409 after START_CONFLICT_WAIT_MS) and what the first reads follow. finalize's refresh once ran after
    // it, holding the workflow open for seconds on a large history. PostgreSQL dates each manual VACUUM and ANALYZE;
    // the newest sync's (the last before this test) lie between its start and its completed_at, the time of the
    // completing transaction.
    const newest = await syncRow(h.db.pool, completed[3]!);
    const started = await h.db.pool.query<{ started_at: Date }>(`SELECT started_at FROM sync_runs WHERE id = $1`, [
      newest.id,
    ]);
    const r = await h.db.pool.query<{ rel: string; last_vacuum: Date | null; last_analyze: Date | null }>(
      `SELECT relid::regclass::text AS rel, last_vacuum, last_analyze FROM pg_stat_user_tables
        WHERE relid IN ('sync_files'::regclass, 'service."File"'::regclass) ORDER BY 1`,
    );
    const when = Object.fromEntries(r.rows.map((x) => [x.rel, x]));
    const refreshed = [
      ['sync_files vacuumed', when.sync_files?.last_vacuum],
      ['sync_files analyzed', when.sync_files?.last_analyze],
      ['File analyzed', when['service."File"']?.last_analyze],
    ] as const;
    for (const [what, at] of refreshed) {
      assert.ok(at, `${what}: never`);
      const span = `${what} at ${at.toISOString()}; sync ${started.rows[0]!.started_at.toISOString()} to ${newest.completed_at!.toISOString()}`;
      assert.ok(at >= started.rows[0]!.started_at, `${span}: not by the newest sync's finalize`);
      assert.ok(at <= newest.completed_at!, `${span}: after the completion`);
    }
  });

  it('the first read of a just-completed sync is planned as the tenth: its snapshot, symbol graph and node detail', async () => {
    // Reading a sync does not change the statistics, so the tenth read runs the plans the first one did (on a cache
    // miss): what makes a first read slow is a plan made on estimates that have not seen the new sync. Every
    // statement the read paths run is planned and run here (EXPLAIN ANALYZE): no scan of File vertices or file
    // records may estimate fewer than half the rows it returns.
    const newest = completed[3]!;
    const sync = await syncRow(h.db.pool, newest);
    const { tx, seen } = recording(h.db.pool);
    await loadSnapshot(tx, sync);
    await loadSymbolGraph(tx, sync);
    await tx.query(nodeDetailSql.inSync, [sourceId, 'src/app.ts', newest]);
    assert.ok(seen.length >= 4, JSON.stringify(seen.map((x) => x.text.slice(0, 40))));
    for (const st of seen) assert.deepEqual(await underestimated(h.db.pool, st), [], st.text);
  });

  it('the first diff of two never-read syncs is planned on their real row counts', async () => {
    const [from, to] = [completed[2]!, completed[3]!];
    const { tx, seen } = recording(h.db.pool);
    for (const id of [from, to]) await loadSnapshot(tx, await syncRow(h.db.pool, id));
    const edgeReads = seen.filter((x) => x.text.includes('depends_on'));
    assert.equal(edgeReads.length, 2);
    for (const st of seen) assert.deepEqual(await underestimated(h.db.pool, st), [], st.text);
  });

  it('pins through the API: POST and DELETE /api/syncs/{id}/pin answer the sync; unknown ids are 404', async () => {
    const pin = (method: string, id: string) => fetch(`${ingestion.url}/api/syncs/${id}/pin`, { method });
    const res = await pin('POST', completed[0]!);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { pinned: boolean; pinned_at: string | null };
    assert.equal(body.pinned, true);
    assert.ok(body.pinned_at);
    const again = (await (await pin('POST', completed[0]!)).json()) as { pinned_at: string };
    assert.equal(again.pinned_at, body.pinned_at, 'pinning a pinned sync changes nothing');
    assert.equal((await pin('POST', '00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await pin('POST', 'not-a-uuid')).status, 400);
    const events = await h.db.pool.query(
      `SELECT payload FROM events WHERE type = 'sync_pin_changed' AND sync_id = $1`,
      [completed[0]],
    );
    assert.equal(events.rowCount, 1);
  });

  it('the schedule runs retentionWorkflow: the window is kept, older syncs cleaned in every label, pinned kept', async () => {
    // Graph data the function was not written for: a new edge label between this sync's symbols, a new vertex
    // label, and a registered per-sync table.
    const victim = completed[1]!;
    await h.db.pool.query(`SELECT ag_catalog.create_elabel('service', 'test_calls')`);
    await h.db.pool.query(`SELECT ag_catalog.create_vlabel('service', 'TestNote')`);
    const cypher = (q: string) =>
      h.db.pool.query(`SELECT * FROM ag_catalog.cypher('service', $$ ${q} $$) AS (x ag_catalog.agtype)`);
    await cypher(
      `MATCH (a:Symbol {sync_id: '${victim}'}), (b:Symbol {sync_id: '${victim}'}) WITH a, b LIMIT 3
       CREATE (a)-[:test_calls {sync_id: '${victim}'}]->(b)`,
    );
    await cypher(`CREATE (:TestNote {sync_id: '${victim}'})`);
    await h.db.pool.query(
      `CREATE TABLE test_unresolved (sync_id uuid NOT NULL REFERENCES sync_runs (id) ON DELETE CASCADE, use text)`,
    );
    await h.db.pool.query(`INSERT INTO sync_graph_tables VALUES ('test_unresolved')`);
    await h.db.pool.query(`INSERT INTO test_unresolved VALUES ($1, 'x'), ($1, 'y')`, [victim]);

    const before = await graphRows(h.db.pool, victim);
    assert.ok(
      before.File! > 0 && before.Symbol! > 0 && before.defines! > 0 && before.depends_on! > 0,
      JSON.stringify(before),
    );
    assert.equal(before.test_calls, 3);
    assert.equal(before.TestNote, 1);
    const keptBefore = await Promise.all(completed.slice(2).map((s) => graphRows(h.db.pool, s)));

    // The schedule exists with the policy as its input; an operator's "Trigger" runs it now.
    const schedule = h.client.schedule.getHandle(retentionScheduleId(ingestion.scheduleIdPrefix));
    const d = await schedule.describe();
    assert.equal(d.action.type, 'startWorkflow');
    assert.equal((d.action as { workflowType: string }).workflowType, RETENTION_WORKFLOW_TYPE);
    assert.deepEqual((d.action as { args: unknown[] }).args, [
      { keepCompleted: 10, keepFailed: 5, purgeAfterSeconds: 3600, eventMaxAgeHours: 168, maxSyncsPerRun: 100 },
    ]);
    await schedule.trigger();
    const workflowId = await waitFor(
      "the retention schedule's triggered run",
      async () => {
        const x = await schedule.describe();
        const a = x.info.recentActions[0];
        return a ? a.action.workflow.workflowId : undefined;
      },
      20_000,
      25,
    );
    const result = (await h.client.workflow.getHandle(workflowId).result()) as RetentionResult;
    assert.equal(result.cleaned, 2, JSON.stringify(result)); // completed[1] and the old failed run
    assert.equal(result.purged, 1); // the cancelled run, over for longer than the purge delay
    assert.equal(result.vacuumed, true);

    assert.equal(await status(h.db.pool, completed[0]!), 'completed', 'pinned: kept beyond the window');
    assert.equal(await status(h.db.pool, victim), 'cleaned');
    assert.equal(await status(h.db.pool, completed[2]!), 'completed');
    assert.equal(await status(h.db.pool, completed[3]!), 'completed');
    assert.equal(await status(h.db.pool, failedOld), 'cleaned');
    assert.equal(await status(h.db.pool, failedNew), 'failed');
    assert.equal(await status(h.db.pool, cancelled), undefined);

    assert.equal(total(await graphRows(h.db.pool, victim)), 0, 'no vertex or edge of the cleaned sync in any label');
    const unresolved = await h.db.pool.query(`SELECT 1 FROM test_unresolved WHERE sync_id = $1`, [victim]);
    assert.equal(unresolved.rowCount, 0);
    const files = await h.db.pool.query(`SELECT 1 FROM sync_files WHERE sync_id = $1`, [victim]);
    assert.ok((files.rowCount ?? 0) > 0, 'a cleaned sync keeps its file records');
    assert.deepEqual(await Promise.all(completed.slice(2).map((s) => graphRows(h.db.pool, s))), keptBefore);
    const cleanedAt = await h.db.pool.query<{ cleaned_at: Date | null }>(
      `SELECT cleaned_at FROM sync_runs WHERE id = $1`,
      [victim],
    );
    assert.ok(cleanedAt.rows[0]!.cleaned_at);
    const lifecycle = await h.db.pool.query<{ status: string }>(
      `SELECT payload->>'status' AS status FROM events WHERE type = 'sync_lifecycle' AND sync_id = ANY($1) ORDER BY id`,
      [[victim, cancelled]],
    );
    assert.deepEqual(
      lifecycle.rows
        .map((r) => r.status)
        .slice(-2)
        .sort(),
      ['cleaned', 'purged'],
    );

    // A second run finds nothing new to do (cleaned syncs are not yet due for purge).
    const again = await runRetention(h.client, h, (d.action as unknown as { args: [RetentionInput] }).args[0]);
    assert.deepEqual({ c: again.cleaned, p: again.purged, v: again.vacuumed }, { c: 0, p: 0, v: false });
  });

  it('cleaned syncs are purged once due: no row of them in any table or label; an unpinned sync follows', async () => {
    const input: RetentionInput = {
      keepCompleted: 10,
      keepFailed: 5,
      purgeAfterSeconds: 0,
      eventMaxAgeHours: 168,
      maxSyncsPerRun: 100,
    };
    // A graph read in flight (one read transaction of the graph component) keeps reading the sync it began with
    // while retention purges it.
    const filesOf = (tx: ReadTx) =>
      tx
        .query<{ n: string }>(`SELECT count(*) AS n FROM file_records WHERE sync_id = $1`, [completed[1]])
        .then((r) => Number(r.rows[0]!.n));
    let purged!: RetentionResult;
    const seen = await withReadTx(h.db.pool, 60_000, async (tx) => {
      const first = await filesOf(tx);
      purged = await runRetention(h.client, h, input);
      return [first, await filesOf(tx)];
    });
    assert.ok(seen[0]! > 0);
    assert.deepEqual(seen, [seen[0], seen[0]], 'the read saw the purged sync whole');
    assert.equal(purged.purged, 2, JSON.stringify(purged));
    for (const id of [completed[1]!, failedOld]) {
      assert.equal(
        total(await tableRows(h.db.pool, id)),
        0,
        `rows of ${id}: ${JSON.stringify(await tableRows(h.db.pool, id))}`,
      );
      assert.equal(total(await graphRows(h.db.pool, id)), 0);
    }
    const orphans = await h.db.pool.query(
      `SELECT 1 FROM file_contents c WHERE NOT EXISTS (SELECT 1 FROM sync_files f WHERE f.content_id = c.id)`,
    );
    assert.equal(orphans.rowCount, 0, 'contents only the purged syncs held are freed');

    const unpin = await fetch(`${ingestion.url}/api/syncs/${completed[0]}/pin`, { method: 'DELETE' });
    assert.equal(((await unpin.json()) as { pinned: boolean }).pinned, false);
    const cleaned = await runRetention(h.client, h, input);
    assert.equal(cleaned.cleaned, 1);
    assert.equal(await status(h.db.pool, completed[0]!), 'cleaned');
    const gone = await runRetention(h.client, h, input);
    assert.equal(gone.purged, 1);
    assert.equal(total(await tableRows(h.db.pool, completed[0]!)), 0);
    assert.equal(total(await graphRows(h.db.pool, completed[0]!)), 0);
    // The window: the two newest completed syncs and the newest failed one, graphs whole.
    const left = await h.db.pool.query<{ id: string }>(`SELECT id FROM sync_runs ORDER BY created_at`);
    assert.deepEqual(left.rows.map((r) => r.id).sort(), [completed[2]!, completed[3]!, failedNew].sort());
    const last = await graphRows(h.db.pool, completed[3]!);
    assert.ok(last.File! > 0 && last.Symbol! > 0);
  });

  it('finalize does not wait for a vacuum holding the tables it analyzes: the sync completes under the lock', async () => {
    // The finalize stall (22-85 s, never reproduced): finalize's ANALYZE of the File label and sync_files needs the
    // lock a running VACUUM or autovacuum holds (SHARE UPDATE EXCLUSIVE conflicts with itself). Held here for the
    // whole sync: if finalize waited for it, the sync would not complete until the lock is released after it.
    addCommit(repo, { 'src/late.ts': 'export const late = 1;\n' });
    const vacuum = await h.db.pool.connect();
    try {
      await vacuum.query('BEGIN');
      await vacuum.query(`LOCK TABLE service."File", sync_files IN SHARE UPDATE EXCLUSIVE MODE`);
      const syncId = await insertPendingSync(h.db.pool, sourceId);
      assert.equal((await runSync(h, sourceId, syncId)).status, 'completed');
      assert.equal(await status(h.db.pool, syncId), 'completed');
    } finally {
      await vacuum.query('ROLLBACK');
      vacuum.release();
    }
  });
});
