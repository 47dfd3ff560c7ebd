// The `ckg` binary, run as a process against the whole service (gateway, components, worker, identity provider).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { configHome, runCli, startAgentStack, type AgentStack, type CliRun } from '../support/agent-stack.ts';
import { startCuttingProxy, type CuttingProxy } from '../support/cutting-proxy.ts';
import { addCommit, createRepo, type TestRepo } from '../support/git-repos.ts';
import { insertSource } from '../support/fixtures.ts';
import { writeSymbolGraph, writeSyncFiles } from '../support/graph-data.ts';

const FILES = {
  'src/core.ts': 'export const core = 1;\n',
  'src/util.ts': "import { core } from './core';\nexport const util = core + 1;\n",
  'src/app.ts': "import { util } from './util';\nconsole.log(util);\n",
};

describe('ckg: the command line against the running service', () => {
  let stack: AgentStack;
  let repo: TestRepo;
  let home: string;
  let proxy: CuttingProxy;
  let sourceId: string;
  let firstSync: string;
  const env = () => ({ XDG_CONFIG_HOME: home });
  const ckg = (...args: string[]) => runCli(args, env());
  const nid = (p: string) => `src_${sourceId}:${p}`;
  const ok = (r: CliRun, what: string) => assert.equal(r.code, 0, `${what}: ${r.stderr}`);

  before(async () => {
    stack = await startAgentStack();
    repo = createRepo(FILES);
    home = configHome();
    proxy = await startCuttingProxy(stack.svc.gateway.url);
  });
  after(async () => {
    await proxy?.close();
    await stack?.close();
    repo?.remove();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('login with client credentials saves a 0600 profile and never prints the secret; a bad secret is exit 3', async () => {
    const secret = stack.svc.idp.gatewayClientSecret;
    const bad = await runCli(['login', '--url', stack.svc.gateway.url, '--client-id', 'service-gateway'], {
      ...env(),
      CKG_CLIENT_SECRET: 'wrong',
    });
    assert.equal(bad.code, 3);
    assert.match(bad.stderr, /identity provider refused client service-gateway/);
    // Through the cutting proxy: every later command (and the event stream) goes through it.
    const r = await runCli(['login', '--url', proxy.url, '--client-id', 'service-gateway'], {
      ...env(),
      CKG_CLIENT_SECRET: secret,
    });
    ok(r, 'login');
    assert.match(r.stderr, /logged in: profile "default"/);
    const file = join(home, 'ckg', 'config.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, 'ckg')).mode & 0o777, 0o700);
    assert.ok(readFileSync(file, 'utf8').includes(secret), 'the secret is kept for later tokens');
    const list = await ckg('profile', 'list');
    ok(list, 'profile list');
    assert.match(list.stdout, /\*\s+default\s+http:\/\/127\.0\.0\.1:\d+\s+client_credentials \(service-gateway\)/);
    for (const out of [r.stdout, r.stderr, list.stdout, list.stderr]) assert.ok(!out.includes(secret));
  });

  it('sources add / list (table and --json)', async () => {
    const add = await ckg('sources', 'add', 'local/cli-repo', '--clone-url', repo.dir, '--branch', 'main');
    ok(add, 'sources add');
    sourceId = add.stdout.trim();
    assert.match(sourceId, /^[0-9a-f-]{36}$/);
    const table = await ckg('sources', 'list');
    ok(table, 'sources list');
    assert.match(table.stdout.split('\n')[0]!, /^ID\s+REPOSITORY\s+BRANCH\s+ENABLED/);
    assert.match(table.stdout, new RegExp(`${sourceId}\\s+local/cli-repo\\s+main\\s+true`));
    const json = await ckg('sources', 'list', '--json');
    const page = JSON.parse(json.stdout) as { items: Array<{ id: string }>; next_cursor: string | null };
    assert.ok(page.items.some((s) => s.id === sourceId));
  });

  it('sync start --follow: live progress from the event stream, resumed with Last-Event-ID after a dropped connection', async () => {
    const r = await ckg('sync', 'start', sourceId, '--follow');
    ok(r, 'sync start --follow');
    assert.equal(proxy.cuts, 1, 'the stream was cut once');
    const m = /event stream lost \(.*\); resuming after event (\d+)/.exec(r.stderr);
    assert.ok(m, r.stderr);
    assert.ok(proxy.eventRequests.length >= 2);
    assert.match(proxy.eventRequests[1]!, new RegExp(`\\r\\nlast-event-id: ${m[1]}\\r\\n`, 'i'));
    assert.doesNotMatch(proxy.eventRequests[0]!, /last-event-id/i, 'the first connection starts live');
    assert.match(r.stderr, /^running\s+.*\[[#-]{24}\]/m, 'progress lines');
    assert.match(r.stderr, /^completed\s/m);
    assert.match(r.stdout, /completed/);
    firstSync = /sync ([0-9a-f-]{36}) started/.exec(r.stderr)![1]!;
  });

  it('a second sync with --json, by owner/name; diff, impact, show, cat and search read the graph', async () => {
    addCommit(repo, {
      'src/core.ts': 'export const core = 2;\n',
      'src/extra.ts': "import { core } from './core';\nexport const extra = core;\n",
    });
    const second = await ckg('sync', 'start', 'local/cli-repo', '--follow', '--json');
    ok(second, 'second sync');
    const run = JSON.parse(second.stdout) as { id: string; status: string };
    assert.equal(run.status, 'completed');

    const diff = await ckg('diff', '--source', 'local/cli-repo');
    ok(diff, 'diff');
    assert.match(diff.stdout, /^A\s+file\s+src\/extra\.ts$/m);
    assert.match(diff.stdout, /^M\s+file\s+src\/core\.ts$/m);
    assert.match(diff.stdout, /^\+\s+edge\s+src\/extra\.ts -> src\/core\.ts$/m);
    assert.match(diff.stderr, new RegExp(`${firstSync} -> ${run.id}: 1 added, 0 removed, 1 changed`));

    const impact = await ckg('impact', nid('src/core.ts'), '--json');
    ok(impact, 'impact');
    const items = (JSON.parse(impact.stdout) as { items: Array<{ file_path: string; distance: number }> }).items;
    assert.deepEqual(
      items.map((i) => `${i.file_path}@${i.distance}`),
      ['src/extra.ts@1', 'src/util.ts@1', 'src/app.ts@2'],
    );
    const table = await ckg('impact', nid('src/core.ts'), '--depth', '1');
    assert.match(table.stdout, /^1\s+source\s+src\/util\.ts/m);
    assert.doesNotMatch(table.stdout, /app\.ts/);

    const show = await ckg('show', 'local/cli-repo:src/util.ts');
    ok(show, 'show');
    assert.match(show.stdout, /^line_count\s+2$/m);
    assert.match(show.stdout, /^out\s+depends_on\s+src\/core\.ts/m);
    assert.match(show.stdout, /^in\s+depends_on\s+src\/app\.ts/m);

    const cat = await ckg('cat', nid('src/util.ts'));
    assert.equal(cat.stdout, FILES['src/util.ts']);
    const line = await ckg('cat', nid('src/util.ts'), '--lines', '2', '-n');
    assert.equal(line.stdout, '2\texport const util = core + 1;\n');

    const search = await ckg('search', 'core', 'constant', '--limit', '2', '--json');
    ok(search, 'search');
    assert.equal((JSON.parse(search.stdout) as { results: unknown[] }).results.length, 2);
    // Scoped to the source, a file name finds that file first, labelled with its repository.
    const named = await ckg('search', 'extra.ts', '--source', sourceId, '--limit', '3');
    ok(named, 'search by name');
    assert.match(named.stdout.split('\n')[1]!, /^local\/cli-repo\s+path_suffix\s+\S+\s+source\s+src\/extra\.ts$/);
    const elsewhere = await ckg('search', 'extra.ts', '--source', '00000000-0000-4000-8000-000000000000');
    assert.notEqual(elsewhere.code, 0);
    assert.match(elsewhere.stderr, /source/);
  });

  it('callers and callees of a symbol, by owner/name:path#Symbol or by id, transitively with --depth', async () => {
    const db = stack.svc.db.pool;
    const src = await insertSource(db, 'acme', 'calls');
    const fn = (name: string, line: number) => ({ name, kind: 'function' as const, line, key: `${name}:function` });
    const { syncId } = await writeSyncFiles(db, src, [
      { path: 'lib/core.ts', symbols: [fn('core', 1)] },
      { path: 'lib/util.ts', symbols: [fn('util', 1), fn('twice', 5)] },
      { path: 'app/main.ts', symbols: [fn('main', 3)] },
    ]);
    const call = (from: string, to: string, lines: number[]) => ({
      label: 'calls' as const,
      from,
      to,
      provenance: 'import' as const,
      confidence: 0.95,
      lines,
      count: lines.length,
    });
    await writeSymbolGraph(
      db,
      { syncId, sourceId: src },
      [
        call('lib/util.ts#util:function', 'lib/core.ts#core:function', [2]),
        call('lib/util.ts#twice:function', 'lib/core.ts#core:function', [6, 7]),
        call('app/main.ts#main:function', 'lib/util.ts#util:function', [4]),
      ],
      [{ from: 'app/main.ts#main:function', kind: 'call', text: 'plugin.run', line: 5, reason: 'dynamic_receiver' }],
    );
    const callers = await ckg('callers', 'acme/calls:lib/core.ts#core');
    ok(callers, 'callers');
    assert.match(callers.stdout, /^DIST\s+KIND\s+SYMBOL\s+FILE:LINE\s+RESOLVED\s+SITES/);
    assert.match(callers.stdout, /^1\s+function\s+twice:function\s+lib\/util\.ts:5\s+import 0\.95\s+6,7$/m);
    assert.match(callers.stdout, /^1\s+function\s+util:function\s+lib\/util\.ts:1\s+import 0\.95\s+2$/m);
    assert.doesNotMatch(callers.stdout, /main/);
    assert.match(callers.stderr, new RegExp(`2 callers of src_${src}:lib/core\\.ts#core:function \\(exact\\)`));
    const deep = await ckg('callers', `src_${src}:lib/core.ts#core:function`, '--depth', '2', '--json');
    ok(deep, 'callers --depth 2');
    const items = (JSON.parse(deep.stdout) as { items: Array<{ key: string; distance: number }> }).items;
    assert.deepEqual(
      items.map((i) => `${i.key}@${i.distance}`),
      ['util:function@1', 'twice:function@1', 'main:function@2'],
    );
    const callees = await ckg('callees', 'acme/calls:app/main.ts#main', '--depth', '2');
    ok(callees, 'callees');
    assert.match(callees.stdout, /^1\s+function\s+util:function/m);
    assert.match(callees.stdout, /^2\s+function\s+core:function/m);
    assert.match(callees.stderr, /lower bound: 1 dynamic_receiver/);
    const missing = await ckg('callers', 'acme/calls:lib/core.ts#nothing');
    assert.equal(missing.code, 4, missing.stderr);
    const usage = await ckg('callers', 'acme/calls:lib/core.ts#core', '--depth', 'deep');
    assert.equal(usage.code, 2, usage.stderr);
  });

  it('sync list, cancel of a finished sync (exit 5), a failing sync (exit 7) and its retry', async () => {
    const list = await ckg('sync', 'list', '--source', sourceId);
    ok(list, 'sync list');
    assert.equal(list.stdout.trim().split('\n').length, 3, 'header and two runs');
    const cancel = await ckg('sync', 'cancel', firstSync);
    assert.equal(cancel.code, 5);
    assert.match(cancel.stderr, /^ckg: FAILED_PRECONDITION: /);

    const broken = await ckg('sources', 'add', 'local/missing', '--clone-url', join(home, 'no-such-repo'));
    const brokenId = broken.stdout.trim();
    const failed = await ckg('sync', 'start', brokenId, '--follow');
    assert.equal(failed.code, 7, failed.stderr);
    assert.match(failed.stderr, /ckg: sync [0-9a-f-]{36} ended failed/);
    const syncId = /sync ([0-9a-f-]{36}) started/.exec(failed.stderr)![1]!;
    const retry = await ckg('sync', 'retry', syncId, '--json');
    ok(retry, 'retry');
    assert.equal((JSON.parse(retry.stdout) as { id: string; status: string }).id, syncId);
  });

  it('exit codes name the cause: usage 2, not found 4, no profile 3, unreachable 6', async () => {
    const usage = await ckg('show');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /missing required argument 'node-id'/);
    const badId = await ckg('show', 'nonsense');
    assert.equal(badId.code, 2);
    assert.match(badId.stderr, /INVALID_ARGUMENT: node_id: must look like/);
    const unknownName = await ckg('sync', 'start', 'nobody/nothing');
    assert.equal(unknownName.code, 2);
    assert.match(unknownName.stderr, /source "nobody\/nothing": no source has this owner\/name/);
    const missing = await ckg('show', nid('nope.ts'));
    assert.equal(missing.code, 4);
    assert.match(missing.stderr, /^ckg: NOT_FOUND: node/);
    const lines = await ckg('cat', nid('src/util.ts'), '--lines', '5:2');
    assert.equal(lines.code, 2);
    const noProfile = await runCli(['sources', 'list'], { XDG_CONFIG_HOME: configHome() });
    assert.equal(noProfile.code, 3);
    assert.match(noProfile.stderr, /profile "default" does not exist/);
    const down = await runCli(['sources', 'list', '--url', 'http://127.0.0.1:9', '--token', 'x'], env());
    assert.equal(down.code, 6);
    assert.match(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:9/);
    const removed = await ckg('sources', 'remove', sourceId);
    ok(removed, 'remove');
    assert.equal((await ckg('sync', 'list', '--source', sourceId, '--json')).code, 0);
  });
});
