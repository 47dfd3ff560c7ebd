/**
 * The precise step in the sync workflow (issue 29), end to end: a real worker, a real precise worker (in-process, its
 * own queues) with scip-typescript and scip-python as the stack installs them, a real git repository.
 *   - no precise worker: the sync completes, one issue per language (phase precise), heuristic edges kept;
 *   - with one: the stored calls/references edges of the covered files are exactly what a direct reading of the
 *     indexer's index gives (provenance scip, confidence 1), and the sync's stats say what changed; the indexers
 *     start right after the clone (before the parse) and their edges are written on the worker holding the index;
 *   - the same commit again: the stored result is reused (no indexer run), same edges;
 *   - a changed commit of a solution of three tsconfig projects reruns only the projects whose program a change
 *     reaches and takes the others' documents from the earlier index: the stored edges equal a full run's;
 *   - an indexer past its wall limit: an issue, the sync completes, the heuristic edges stay.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addCommit, createRepo, writeTree, type TestRepo } from '../support/git-repos.ts';
import {
  createHarness,
  getRun,
  insertPendingSync,
  insertSource,
  startSync,
  quietLog,
  type Harness,
} from '../support/pipeline.ts';
import { connectWorker, uniqueTaskQueue } from '../support/temporal.ts';
import { TEST_URL_POLICY, testEnv } from '../support/env.ts';
import { PreciseWorker } from '../../temporal/precise-worker.ts';
import type { PreciseSettings } from '../../activities/precise/settings.ts';
import { installedIndexers, type PreciseLanguage } from '../../activities/precise/indexers.ts';
import { directReading, expectedEdges, storedSymbolEdges } from '../support/precise.ts';
import type { PreciseLanguageResult } from '../../workflows/sync-types.ts';

const FILES: Record<string, string> = {
  'tsconfig.json':
    '{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "ESNext" }, "include": ["src"] }\n',
  'src/util.ts':
    'export function helper(x: number): number {\n  return x * 2;\n}\nexport function twice(x: number): number {\n  return helper(helper(x));\n}\n',
  'src/app.ts':
    "import { helper, twice } from './util';\nexport class App {\n  run(): number {\n    return twice(helper(1));\n  }\n  pick(): (x: number) => number {\n    return helper;\n  }\n}\n",
  'src/shape.ts':
    'export interface Shape {\n  area(): number;\n}\nexport class Square implements Shape {\n  area(): number {\n    return 4;\n  }\n}\n',
  'pkg/__init__.py': '',
  'pkg/util.py':
    'def helper(x):\n    return x * 2\n\n\nclass Greeter:\n    def greet(self, name):\n        return self.format(name)\n\n    def format(self, name):\n        return "hi " + name\n',
  'pkg/app.py':
    'import os\nfrom pkg.util import helper, Greeter\n\n\ndef main():\n    g = Greeter()\n    print(os.path.join("a", "b"))\n    return helper(len(g.greet("x")))\n',
};

/**
 * A solution of three tsconfig projects, each a package (scip-typescript names symbols after the nearest package.json:
 * app's uses of lib's functions are lib's own symbols); app imports lib, tools stands alone.
 */
const project =
  '{ "compilerOptions": { "strict": true, "composite": true, "target": "ES2022", "module": "ESNext", "moduleResolution": "bundler" }, "include": ["src"] }\n';
const PROJECTS: Record<string, string> = {
  'tsconfig.json': '{ "files": [], "references": [{ "path": "./lib" }, { "path": "./app" }, { "path": "./tools" }] }\n',
  'package.json': '{ "name": "projects", "version": "1.0.0", "private": true }\n',
  'lib/package.json': '{ "name": "lib", "version": "1.0.0" }\n',
  'app/package.json': '{ "name": "app", "version": "1.0.0" }\n',
  'tools/package.json': '{ "name": "tools", "version": "1.0.0" }\n',
  'lib/tsconfig.json': project,
  'app/tsconfig.json': project,
  'tools/tsconfig.json': project,
  'lib/src/util.ts':
    'export function helper(x: number): number {\n  return x * 2;\n}\nexport function twice(x: number): number {\n  return helper(helper(x));\n}\n',
  'app/src/main.ts':
    "import { helper, twice } from '../../lib/src/util';\nexport function main(): number {\n  return twice(helper(1));\n}\n",
  'tools/src/cli.ts':
    "function parse(a: string): string[] {\n  return a.split(' ');\n}\nexport function cli(a: string): number {\n  return parse(a).length;\n}\n",
};
/** lib's helper becomes a const (another SCIP symbol): app's documents of the first commit would point at nothing. */
const LIB_CHANGED = {
  'lib/src/util.ts':
    '// moved down\nexport const helper = (x: number): number => x * 3;\nexport function twice(x: number): number {\n  return helper(helper(x));\n}\n',
};

function settings(workDir: string, wallMs = 120_000): PreciseSettings {
  const l = { wallMs, memoryMb: 2048 };
  return {
    workDir,
    limits: { typescript: l, python: l, go: l, java: l },
    allowDependencies: false,
    heartbeatTimeoutMs: 5000,
    cloneTimeoutMs: 60_000,
    sourceUrls: TEST_URL_POLICY,
    // As deployed: scip-typescript in two processes (the direct reading below runs one, resolving every name).
    typescriptProcesses: 2,
  };
}

/** The stored edges without the target kind (the direct reading has none). */
async function storedEdges(h: Harness, syncId: string) {
  return (await storedSymbolEdges(h.db.pool, syncId)).map(({ toKind: _k, ...e }) => e);
}

/** What the indexer itself says about the same files, read directly (the test's own run of it). */
async function direct(h: Harness, syncId: string, language: PreciseLanguage, files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'ckg-precise-direct-'));
  try {
    writeTree(root, files);
    return await directReading(h.db.pool, syncId, language, root, installedIndexers()[language]!);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('precise step in the sync workflow', () => {
  let h: Harness;
  let repo: TestRepo;
  let sourceId: string;
  let workDir: string;
  let precise: { worker: PreciseWorker; run: Promise<void>; close: () => Promise<void> } | null = null;
  const syncs: string[] = [];
  /** The last sync's scheduled activities in order: type and task queue. */
  let scheduled: Array<{ type: string; queue: string }> = [];

  async function startPrecise(wallMs?: number) {
    const connection = await connectWorker();
    const worker = await PreciseWorker.create({
      connection,
      namespace: testEnv.temporalNamespace,
      pool: h.db.pool,
      log: quietLog,
      settings: settings(workDir, wallMs),
      queuePrefix: uniqueTaskQueue('precise'),
      languages: ['typescript', 'python'],
      maxConcurrent: 2,
    });
    const run = worker.run();
    precise = {
      worker,
      run,
      close: async () => {
        worker.shutdown();
        await run.catch(() => undefined);
        await connection.close();
      },
    };
  }

  /** Syncs the source (the main one by default; only its syncs are kept in `syncs`). */
  async function sync(source = sourceId): Promise<string> {
    const syncId = await insertPendingSync(h.db.pool, source);
    const handle = await startSync(h, source, syncId);
    const result = await handle.result();
    assert.equal(result.status, 'completed', JSON.stringify(result));
    scheduled = ((await handle.fetchHistory()).events ?? []).flatMap((e) => {
      const a = e.activityTaskScheduledEventAttributes;
      return a ? [{ type: a.activityType?.name ?? '', queue: a.taskQueue?.name ?? '' }] : [];
    });
    if (source === sourceId) syncs.push(syncId);
    return syncId;
  }

  before(async () => {
    h = await createHarness({ precise: true });
    await h.startWorker();
    repo = createRepo(FILES);
    workDir = mkdtempSync(join(tmpdir(), 'ckg-precise-work-'));
    sourceId = await insertSource(h.db.pool, { url: repo.dir, owner: 'acme', name: 'precise' });
  });
  after(async () => {
    await precise?.close();
    await h.close();
    repo.remove();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('without a precise worker, completes the sync with one issue per language and heuristic edges', async () => {
    const syncId = await sync();
    const issues = await h.db.pool.query<{ code: string; context: { language: string } }>(
      `SELECT code, context FROM sync_issues WHERE sync_id = $1 AND phase = 'precise' ORDER BY context ->> 'language'`,
      [syncId],
    );
    assert.deepEqual(
      issues.rows.map((r) => `${r.code} ${r.context.language}`),
      ['precise_no_worker python', 'precise_no_worker typescript'],
    );
    const edges = await storedEdges(h, syncId);
    assert.ok(edges.length > 0);
    assert.ok(edges.every((e) => e.provenance !== 'scip'));
    const stats = (await getRun(h.db.pool, syncId)).stats as { precise?: Record<string, PreciseLanguageResult> };
    assert.equal(stats.precise?.typescript?.status, 'skipped');
  });

  it('with a precise worker, stores exactly the direct reading of each index as scip edges', async () => {
    await startPrecise();
    const syncId = await sync();
    const stored = (await storedEdges(h, syncId)).filter((e) => e.provenance === 'scip');
    const expected = [
      ...expectedEdges(await direct(h, syncId, 'typescript', FILES)),
      ...expectedEdges(await direct(h, syncId, 'python', FILES)),
    ].sort((x, y) => (`${x.label} ${x.from} ${x.to}` < `${y.label} ${y.from} ${y.to}` ? -1 : 1));
    assert.deepEqual(stored, expected);
    // What the fixtures hold, by hand: the call through self, the call through an import, a function as a value.
    const pairs = stored.map((e) => `${e.label} ${e.from} -> ${e.to}`);
    for (const want of [
      'calls pkg/util.py#Greeter.greet:method -> pkg/util.py#Greeter.format:method',
      'calls pkg/app.py#main:function -> pkg/util.py#helper:function',
      'calls src/util.ts#twice:function -> src/util.ts#helper:function',
      'references src/app.ts#App.pick:method -> src/util.ts#helper:function',
    ])
      assert.ok(pairs.includes(want), `${want} in ${pairs.join('\n')}`);
    // No heuristic calls edge is left from a covered file.
    const all = await storedEdges(h, syncId);
    assert.ok(all.filter((e) => e.label === 'calls').every((e) => e.provenance === 'scip'));
    // The index's relationships replace the heuristic hierarchy edges between the same symbols: one edge each, scip.
    const hierarchy = all
      .filter((e) => e.from.startsWith('src/shape.ts#') && ['implements', 'inherits', 'overrides'].includes(e.label))
      .map((e) => `${e.label} ${e.from} -> ${e.to} ${e.provenance}`);
    assert.deepEqual(hierarchy, [
      'implements src/shape.ts#Square:class -> src/shape.ts#Shape:interface scip',
      'overrides src/shape.ts#Square.area:method -> src/shape.ts#Shape.area:method scip',
    ]);
    const stats = (await getRun(h.db.pool, syncId)).stats as {
      precise: Record<string, PreciseLanguageResult>;
      durations_ms: { precise?: number };
    };
    assert.equal(stats.precise.typescript!.status, 'indexed');
    assert.equal(stats.precise.python!.status, 'indexed');
    assert.equal(stats.precise.typescript!.edges + stats.precise.python!.edges, stored.length);
    assert.ok((stats.durations_ms.precise ?? 0) > 0);
    // The tier starts right after the clone: planned before the first parse, one indexer run per language; each
    // language's edges go to the precise worker that holds its index (its own queue). (Were that worker's step lost,
    // a second preciseIndex would go to the language's queue: not counted here, it depends on the machine's load.)
    const types = scheduled.map((a) => a.type);
    assert.ok(types.indexOf('planPrecise') < types.indexOf('parseBatch'), types.join(', '));
    assert.equal(types.filter((t) => t === 'preparePrecise').length, 2);
    const held = scheduled.filter((a) => a.type === 'preciseIndex' && /-host@/.test(a.queue));
    assert.equal(held.length, 2, JSON.stringify(scheduled));
    assert.ok(stats.precise.typescript!.indexer_ms! > 0 && stats.precise.python!.indexer_ms! > 0);
  });

  it('reuses the stored result for an unchanged commit', async () => {
    const before = (await storedEdges(h, syncs[syncs.length - 1]!)).filter((e) => e.provenance === 'scip');
    const syncId = await sync();
    const stats = (await getRun(h.db.pool, syncId)).stats as { precise: Record<string, PreciseLanguageResult> };
    assert.equal(stats.precise.typescript!.status, 'reused');
    assert.equal(stats.precise.python!.status, 'reused');
    const now = (await storedEdges(h, syncId)).filter((e) => e.provenance === 'scip');
    assert.deepEqual(now, before);
  });

  it('reruns only the tsconfig projects a change reaches and stores what a full run gives', async () => {
    const multi = createRepo(PROJECTS);
    try {
      const source = await insertSource(h.db.pool, { url: multi.dir, owner: 'acme', name: 'projects' });
      const typescript = async (syncId: string) =>
        ((await getRun(h.db.pool, syncId)).stats as { precise: Record<string, PreciseLanguageResult> }).precise
          .typescript!;
      const scipEdges = async (syncId: string) => (await storedEdges(h, syncId)).filter((e) => e.provenance === 'scip');
      const first = await typescript(await sync(source));
      assert.equal(first.status, 'indexed');
      assert.deepEqual(first.projects, { indexed: 3, reused: 0 });
      // lib changes: lib and app (whose program holds lib's file) rerun, tools' documents are the first commit's.
      addCommit(multi, LIB_CHANGED);
      const second = await sync(source);
      assert.deepEqual((await typescript(second)).projects, { indexed: 2, reused: 1 });
      const stored = await scipEdges(second);
      assert.deepEqual(stored, expectedEdges(await direct(h, second, 'typescript', { ...PROJECTS, ...LIB_CHANGED })));
      const pairs = stored.map((e) => `${e.label} ${e.from} -> ${e.to}`);
      for (const want of [
        'calls app/src/main.ts#main:function -> lib/src/util.ts#helper:function',
        'calls tools/src/cli.ts#cli:function -> tools/src/cli.ts#parse:function',
      ])
        assert.ok(pairs.includes(want), `${want} in ${pairs.join('\n')}`);
      // A commit that changes no file the indexer reads reruns nothing: the earlier index is the new commit's.
      addCommit(multi, { 'README.md': '# projects\n' });
      const third = await sync(source);
      assert.deepEqual((await typescript(third)).projects, { indexed: 0, reused: 3 });
      assert.deepEqual(await scipEdges(third), stored);
    } finally {
      multi.remove();
    }
  });

  it('turns an indexer past its wall limit into an issue and keeps the heuristic edges', async () => {
    await precise!.close();
    await h.db.pool.query(`DELETE FROM precise_workers`);
    await startPrecise(1);
    addCommit(repo, {
      'src/more.ts': "import { helper } from './util';\nexport function more(): number {\n  return helper(3);\n}\n",
    });
    const syncId = await sync();
    const issues = await h.db.pool.query<{ code: string }>(
      `SELECT code FROM sync_issues WHERE sync_id = $1 AND phase = 'precise' ORDER BY code`,
      [syncId],
    );
    assert.deepEqual(
      issues.rows.map((r) => r.code),
      ['precise_timeout', 'precise_timeout'],
    );
    const edges = await storedEdges(h, syncId);
    assert.ok(edges.length > 0 && edges.every((e) => e.provenance !== 'scip'));
  });

  it('removes stored results when no kept sync is as old as they are', async () => {
    const count = async () =>
      Number(
        (
          await h.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM precise_results WHERE source_id = $1`, [
            sourceId,
          ])
        ).rows[0]!.n,
      );
    assert.equal(await count(), 2); // typescript and python, written by the second sync, reused by the third
    // The newest sync goes (nothing shares its graph): older kept syncs remain, so the results stay.
    await h.db.pool.query(`DELETE FROM sync_runs WHERE id = $1`, [syncs[3]]);
    assert.equal(await count(), 2);
    // The rest at once (an unchanged re-sync shares its predecessor's graph, so they go together): none is left.
    await h.db.pool.query(`DELETE FROM sync_runs WHERE id = ANY($1::uuid[])`, [syncs.slice(0, 3)]);
    assert.equal(await count(), 0);
  });
});
