import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { addCommit, createRepo, type TestRepo } from '../support/git-repos.ts';
import { createHarness, getRun, insertPendingSync, insertSource, runSync, type Harness } from '../support/pipeline.ts';
import { syncSnapshot } from '../support/sync-snapshot.ts';
import type { IncrementalStats } from '../../workflows/sync-types.ts';
import { FILL_VECTORS_WORKFLOW_TYPE, fillVectorsWorkflowId } from '../../workflows/fill-vectors-contract.ts';
import { missingVectors } from '../../activities/store/index.ts';

// Files whose imports make resolution depend on the rest of the tree: an unchanged importer gains an edge when its
// target is added (src/later.ts, py/pkg/c.py) and loses one when its target is removed or renamed.
const FILES: Record<string, string> = {
  'src/app.ts':
    "import { util } from './util';\nimport { later } from './later';\n\nexport function main(): number {\n  return util() + later();\n}\n",
  'src/util.ts': 'export function util(): number {\n  return 1;\n}\n',
  'src/other.ts': "import { util } from './util';\n\nexport function other(): number {\n  return util() * 2;\n}\n",
  'py/pkg/__init__.py': '',
  'py/pkg/a.py': 'from pkg import b\nfrom pkg.c import thing\n\n\ndef fa():\n    return b.fb() + thing()\n',
  'py/pkg/b.py': 'def fb():\n    return 2\n\n\nclass Bee:\n    def buzz(self):\n        return fb()\n',
  'docs/readme.md': '# Demo\n\nA small tree.\n\n## Usage\n\nRun it.\n',
  'notes/stable.txt': 'This file never changes.\n',
  // A reused file's vertices are written from stored rows as agtype text: names that need escaping must survive.
  'py/odd/na\u00efve "quoted" \\ name.py':
    'def caf\u00e9():\n    return "\\\\"\n\n\nclass \u00dcn\u00efcode:\n    pass\n',
};

function git(dir: string, ...args: string[]): void {
  execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
}

async function sync(h: Harness, sourceId: string): Promise<string> {
  const syncId = await insertPendingSync(h.db.pool, sourceId);
  const result = await runSync(h, sourceId, syncId);
  assert.equal(result.status, 'completed', JSON.stringify(result));
  return syncId;
}

async function incrementalStats(h: Harness, syncId: string): Promise<IncrementalStats> {
  const run = await getRun(h.db.pool, syncId);
  return (run.stats as { incremental: IncrementalStats }).incremental;
}

/** Embedding inputs the model host received since its last reset. */
function embeddingInputs(h: Harness): number {
  return h.modelHost.stats().embeddings.inputs;
}

/** Files of `syncId` whose content is not shared with `previousId`, and their chunks: what had to be embedded. */
async function newContent(
  h: Harness,
  syncId: string,
  previousId: string,
): Promise<{ files: number; chunks: number; keyed: number }> {
  const r = await h.db.pool.query<{ files: number; chunks: number; keyed: number }>(
    `SELECT count(*)::int AS files,
            coalesce(sum((SELECT count(*) FROM file_content_chunks k WHERE k.content_id = s.content_id)), 0)::int AS chunks,
            coalesce(sum((SELECT count(k.key_embedding) FROM file_content_chunks k WHERE k.content_id = s.content_id)),
                     0)::int AS keyed
       FROM sync_files s
      WHERE s.sync_id = $1 AND s.content_id NOT IN (SELECT content_id FROM sync_files WHERE sync_id = $2)`,
    [syncId, previousId],
  );
  return r.rows[0]!;
}

async function describe_(h: Harness, syncId: string, path: string): Promise<string | null> {
  const r = await h.db.pool.query<{ description: string | null }>(
    `SELECT description FROM file_records WHERE sync_id = $1 AND file_path = $2`,
    [syncId, path],
  );
  return r.rows[0]?.description ?? null;
}

describe('incremental syncs equal full syncs of the same commit', () => {
  let h: Harness;
  let repo: TestRepo;
  let incremental: string;
  let full: string;
  const syncs: Array<{ incremental: string; full: string }> = [];

  before(async () => {
    h = await createHarness();
    await h.startWorker();
    repo = createRepo(FILES);
    incremental = await insertSource(h.db.pool, { url: repo.dir, name: 'incremental' });
    full = await insertSource(h.db.pool, { url: repo.dir, name: 'full', config: { incremental: false } });
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  /** Syncs both sources at the current commit, the incremental one with a fresh request log. */
  async function syncBoth(): Promise<{ incremental: string; full: string; inputs: number }> {
    h.modelHost.resetStats();
    const a = await sync(h, incremental);
    const inputs = embeddingInputs(h);
    const b = await sync(h, full);
    syncs.push({ incremental: a, full: b });
    return { incremental: a, full: b, inputs };
  }

  async function assertEqualSnapshots(a: string, b: string): Promise<string[]> {
    const [x, y] = [await syncSnapshot(h.db.pool, a), await syncSnapshot(h.db.pool, b)];
    for (const key of Object.keys(x) as Array<keyof typeof x>) assert.deepEqual(x[key], y[key], `${key} differ`);
    assert.ok(x.files.length > 0 && x.chunks.length > 0 && x.dependsOn.length > 0 && x.defines.length > 0);
    assert.ok(x.symbolEdges.length > 0, 'the symbol graph has edges');
    return x.symbolEdges;
  }

  const symbolsStep = async (syncId: string) =>
    (
      await h.db.pool.query<{ result: { copiedFrom?: string; resolvedWhileWriting?: true } }>(
        `SELECT result FROM sync_steps WHERE sync_id = $1 AND step = 'symbols'`,
        [syncId],
      )
    ).rows[0]!.result;

  /** The symbol edges of one label from one symbol to another (`<path>#<key>`), whatever their properties. */
  const edge = (edges: string[], label: string, from: string, to: string) =>
    edges.filter((e) => e.startsWith(`${label} ${from} -> ${to} `));

  it('commit 1: both syncs are full and equal', async () => {
    const s = await syncBoth();
    const edges = await assertEqualSnapshots(s.incremental, s.full);
    assert.equal(edge(edges, 'calls', 'src/app.ts#main:function', 'src/util.ts#util:function').length, 1);
    assert.equal(edge(edges, 'calls', 'py/pkg/b.py#Bee.buzz:method', 'py/pkg/b.py#fb:function').length, 1);
    const a = await incrementalStats(h, s.incremental);
    assert.equal(a.full, true);
    assert.equal(a.reason, 'no_previous_sync');
    assert.equal(a.added, Object.keys(FILES).length);
  });

  it('commit 2 (a file changed, two added): only those are analysed and embedded, the graph equals a full sync', async () => {
    const first = syncs[0]!.incremental;
    // Cached summaries on the first incremental sync.
    for (const path of ['notes/stable.txt', 'src/app.ts', 'src/util.ts', 'docs/readme.md']) {
      await h.db.pool.query(
        `UPDATE file_records SET description = $3, description_generated_at = now() WHERE sync_id = $1 AND file_path = $2`,
        [first, path, `summary of ${path}`],
      );
    }
    addCommit(repo, {
      'src/util.ts':
        'export function util(): number {\n  return 1;\n}\n\nexport function twice(): number {\n  return 2;\n}\n',
      'src/later.ts': 'export function later(): number {\n  return 3;\n}\n',
      'py/pkg/c.py': 'def thing():\n    return 4\n',
    });
    const s = await syncBoth();
    const edges = await assertEqualSnapshots(s.incremental, s.full);
    // Calls from unchanged (reused) files into an added file and into a changed one.
    assert.equal(edge(edges, 'calls', 'src/app.ts#main:function', 'src/later.ts#later:function').length, 1);
    assert.equal(edge(edges, 'calls', 'py/pkg/a.py#fa:function', 'py/pkg/c.py#thing:function').length, 1);
    assert.equal(edge(edges, 'calls', 'src/other.ts#other:function', 'src/util.ts#util:function').length, 1);

    const a = await incrementalStats(h, s.incremental);
    assert.equal(a.full, false);
    assert.equal(a.previous_sync_id, first);
    assert.deepEqual([a.changed, a.added, a.removed], [1, 2, 0]);
    assert.equal(a.reused, Object.keys(FILES).length - 1);
    const b = await incrementalStats(h, s.full);
    assert.equal(b.full, true);
    assert.equal(b.reason, 'disabled');
    assert.equal(b.reused, 0);
    // The full sync's worker resolved while it wrote the batches (every file analysed there); the incremental sync
    // resolved from the stored facts: the graphs above are equal.
    assert.equal((await symbolsStep(s.full)).resolvedWhileWriting, true);
    assert.equal((await symbolsStep(s.incremental)).resolvedWhileWriting, undefined);

    // The model host saw exactly the new contents: 3 file texts, their chunks and those chunks' key texts.
    const fresh = await newContent(h, s.incremental, first);
    assert.equal(fresh.files, 3);
    assert.equal(s.inputs, fresh.files + fresh.chunks + fresh.keyed);

    // Summaries: carried where the file and its neighbourhood are unchanged, dropped otherwise.
    assert.equal(await describe_(h, s.incremental, 'notes/stable.txt'), 'summary of notes/stable.txt');
    assert.equal(await describe_(h, s.incremental, 'docs/readme.md'), 'summary of docs/readme.md');
    assert.equal(await describe_(h, s.incremental, 'src/app.ts'), null, 'its dependency changed and one was added');
    assert.equal(await describe_(h, s.incremental, 'src/util.ts'), null, 'the file changed');
    assert.equal(a.summaries_carried, 2);
    assert.equal(a.summaries_dropped, 1);
  });

  it('commit 3 (a file removed, one renamed): resolution of unchanged importers follows', async () => {
    rmSync(join(repo.dir, 'src/other.ts'));
    git(repo.dir, 'mv', 'py/pkg/b.py', 'py/pkg/b2.py');
    addCommit(repo, {});
    const s = await syncBoth();
    const edges = await assertEqualSnapshots(s.incremental, s.full);
    // The deleted file's calls are gone; the renamed file's own calls moved with it; the unchanged importer of the
    // old path no longer reaches it (its import names a module that is not there any more).
    assert.deepEqual(
      edges.filter((e) => e.includes('src/other.ts')),
      [],
    );
    assert.equal(edge(edges, 'calls', 'py/pkg/b2.py#Bee.buzz:method', 'py/pkg/b2.py#fb:function').length, 1);
    assert.deepEqual(
      edges.filter((e) => e.includes('py/pkg/b.py#')),
      [],
    );
    assert.equal(edge(edges, 'calls', 'py/pkg/a.py#fa:function', 'py/pkg/b2.py#fb:function').length, 0);
    const a = await incrementalStats(h, s.incremental);
    assert.deepEqual([a.changed, a.added, a.removed], [0, 1, 2]);
    // The renamed file's content is new to this path: it is analysed (and embedded: its text names the path).
    assert.equal((await newContent(h, s.incremental, syncs[1]!.incremental)).files, 1);
  });

  it('commit 3 again (no change): nothing is analysed or embedded, everything is equal', async () => {
    // The previous sync's graph lacks one file (as if its vertex could not be written): a reused file's graph is
    // written from the stored rows, not from the previous sync's graph, so it is there all the same.
    const removed = await h.db.pool.query(
      `WITH f AS (
         SELECT id FROM service."File"
          WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = $1::text::ag_catalog.agtype
            AND properties ->> '"file_path"'::ag_catalog.agtype = 'py/pkg/b2.py'
       ), e AS (DELETE FROM service.defines d USING f WHERE d.start_id = f.id RETURNING d.end_id),
       k AS (DELETE FROM service._ag_label_edge x WHERE x.start_id IN (SELECT end_id FROM e)
                                                    OR x.end_id IN (SELECT end_id FROM e)),
       s AS (DELETE FROM service."Symbol" WHERE id IN (SELECT end_id FROM e)),
       o AS (DELETE FROM service.depends_on d USING f WHERE d.start_id = f.id OR d.end_id = f.id)
       DELETE FROM service."File" WHERE id IN (SELECT id FROM f)`,
      [JSON.stringify(syncs[2]!.incremental)],
    );
    assert.equal(removed.rowCount, 1);
    const s = await syncBoth();
    await assertEqualSnapshots(s.incremental, s.full);
    const a = await incrementalStats(h, s.incremental);
    const files = (await syncSnapshot(h.db.pool, s.incremental)).files.length;
    assert.deepEqual([a.reused, a.changed, a.added, a.removed], [files, 0, 0, 0]);
    assert.equal(s.inputs, 0, 'no embedding request');
    assert.equal(await describe_(h, s.incremental, 'notes/stable.txt'), 'summary of notes/stable.txt');
    // The previous sync's graph lacked a file's symbols: its symbol graph was not copied but resolved afresh.
    assert.equal((await symbolsStep(s.incremental)).copiedFrom, undefined);
    // Once more with nothing changed and the previous graph whole: its symbol graph is copied, equal all the same.
    const again = await sync(h, incremental);
    assert.equal((await symbolsStep(again)).copiedFrom, s.incremental);
    await assertEqualSnapshots(again, s.full);
  });

  it('symbol_graph: false leaves out the symbol graph but no symbol or key; with it on again nothing is reused', async () => {
    const source = await insertSource(h.db.pool, { url: repo.dir, name: 'no-graph', config: { symbol_graph: false } });
    const off = await sync(h, source);
    const reference = syncs.at(-1)!.full;
    const [x, y] = [await syncSnapshot(h.db.pool, off), await syncSnapshot(h.db.pool, reference)];
    assert.deepEqual(x.symbolVertices, y.symbolVertices);
    assert.deepEqual(x.defines, y.defines);
    assert.deepEqual(x.dependsOn, y.dependsOn);
    assert.deepEqual([x.symbolEdges, x.unresolved], [[], []]);
    assert.ok(y.symbolEdges.length > 0);
    assert.equal(
      (await h.db.pool.query(`SELECT 1 FROM sync_steps WHERE sync_id = $1 AND step = 'symbols'`, [off])).rowCount,
      0,
    );
    const stats = (await getRun(h.db.pool, off)).stats as { edges: Record<string, number>; symbol_uses?: unknown };
    assert.deepEqual(Object.keys(stats.edges).sort(), ['defines', 'depends_on']);
    assert.equal(stats.symbol_uses, undefined);
    // On again: the analyses without symbol facts are not reused (they would leave their files out of the graph).
    await h.db.pool.query(`UPDATE sources SET config = '{}' WHERE id = $1`, [source]);
    const on = await sync(h, source);
    const a = await incrementalStats(h, on);
    assert.equal(a.reused, 0);
    await assertEqualSnapshots(on, reference);
  });

  it('a sync whose model host was down is not carried as empty: the next one embeds what is missing', async () => {
    const outage = await insertSource(h.db.pool, { url: repo.dir, name: 'outage' });
    h.modelHost.setFaults({ failureRate: 1 }, 'embeddings');
    let down: string;
    try {
      down = await sync(h, outage);
    } finally {
      h.modelHost.setFaults({ failureRate: 0 }, 'embeddings');
    }
    const empty = await h.db.pool.query<{ n: number; files: number }>(
      `SELECT count(*) FILTER (WHERE embedding IS NULL)::int AS n, count(*)::int AS files
         FROM file_records WHERE sync_id = $1`,
      [down],
    );
    const files = empty.rows[0]!.files;
    assert.equal(empty.rows[0]!.n, files, 'the outage left every file without a vector');

    const next = await sync(h, outage);
    const a = await incrementalStats(h, next);
    assert.equal(a.reused, 0);
    assert.equal(a.unchanged_reanalysed, files);
    await assertEqualSnapshots(next, syncs.at(-1)!.full);
  });

  it('the fill operation gives a completed sync the vectors the model host could not give it', async () => {
    const source = await insertSource(h.db.pool, { url: repo.dir, name: 'fill', config: { incremental: false } });
    h.modelHost.setFaults({ failureRate: 1 }, 'embeddings');
    let down: string;
    try {
      down = await sync(h, source);
    } finally {
      h.modelHost.setFaults({ failureRate: 0 }, 'embeddings');
    }
    const missing = await missingVectors(h.db.pool, down);
    assert.ok(missing.files > 0 && missing.chunks > 0, JSON.stringify(missing));
    const issues = await h.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sync_issues WHERE sync_id = $1 AND phase LIKE 'embedding_%'`,
      [down],
    );
    assert.ok(issues.rows[0]!.n > 0);

    const handle = await h.client.workflow.start(FILL_VECTORS_WORKFLOW_TYPE, {
      workflowId: fillVectorsWorkflowId(down),
      taskQueue: h.taskQueue,
      args: [{ syncId: down, sourceId: source }],
    });
    const result = (await handle.result()) as { files: { embedded: number }; chunks: { embedded: number } };
    assert.equal(result.files.embedded, missing.files);
    assert.equal(result.chunks.embedded, missing.chunks);
    assert.deepEqual(await missingVectors(h.db.pool, down), { files: 0, chunks: 0 });
    await assertEqualSnapshots(down, syncs.at(-1)!.full);
    const after = await h.db.pool.query<{ n: number; stats: { embeddings: Record<string, unknown> } }>(
      `SELECT (SELECT count(*)::int FROM sync_issues WHERE sync_id = $1 AND phase LIKE 'embedding_%') AS n, stats
         FROM sync_runs WHERE id = $1`,
      [down],
    );
    assert.equal(after.rows[0]!.n, 0, 'the embedding issues of the outage are replaced');
    assert.equal(after.rows[0]!.stats.embeddings.files_failed, 0);
    assert.equal(after.rows[0]!.stats.embeddings.chunks_failed, 0);
    const event = await h.db.pool.query(`SELECT 1 FROM events WHERE sync_id = $1 AND type = 'sync_vectors_filled'`, [
      down,
    ]);
    assert.equal(event.rowCount, 1);
  });

  it('removing every sync of a source frees the contents no other sync holds', async () => {
    const before = await h.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM file_contents`);
    await h.db.pool.query(`DELETE FROM sync_runs WHERE source_id = $1`, [full]);
    const after = await h.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM file_contents c
        WHERE NOT EXISTS (SELECT 1 FROM sync_files s WHERE s.content_id = c.id)`,
    );
    assert.equal(after.rows[0]!.n, 0);
    const left = await h.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM file_contents`);
    assert.ok(left.rows[0]!.n < before.rows[0]!.n);
  });
});
