/**
 * Issue 27 on the worker: no input field and no repository content runs a command (docs/security.md). Each vector
 * tries to create a marker file; each test asserts that none appears and that the sync issue says why.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloneError, checkoutRef } from '../../activities/sync/helpers/git-checkout.ts';
import { DEFAULT_URL_POLICY } from '../../lib/source-url.ts';
import { createRepo, type TestRepo } from '../support/git-repos.ts';
import { createHarness, getRun, insertPendingSync, insertSource, runSync, type Harness } from '../support/pipeline.ts';

async function issueOf(h: Harness, syncId: string) {
  const r = await h.db.pool.query<{ phase: string; code: string; message: string }>(
    `SELECT phase, code, message FROM sync_issues WHERE sync_id = $1 ORDER BY id`,
    [syncId],
  );
  return r.rows;
}

describe('hostile input and repository content never run a command on the worker', () => {
  let h: Harness;
  let marks: string;
  let ok: TestRepo;
  const marker = (name: string) => join(marks, name);
  const noMarkers = () => assert.deepEqual(readdirSync(marks), [], 'no command ran');

  before(async () => {
    h = await createHarness();
    await h.startWorker();
    marks = mkdtempSync(join(tmpdir(), 'ckg-marks-'));
    ok = createRepo({ 'a.ts': 'export const a = 1;\n' });
  });
  after(async () => {
    await h.close();
    ok.remove();
    rmSync(marks, { recursive: true, force: true });
  });

  it('a stored default_branch or sync ref that git would read as an option is refused at sync start', async () => {
    const viaBranch = await insertSource(h.db.pool, {
      url: ok.dir,
      defaultBranch: `--upload-pack=touch ${marker('branch')}`,
    });
    const viaRef = await insertSource(h.db.pool, { url: ok.dir });
    const runs = [
      await insertPendingSync(h.db.pool, viaBranch),
      await insertPendingSync(h.db.pool, viaRef, `--upload-pack=touch ${marker('ref')}`),
    ];
    for (const [i, syncId] of runs.entries()) {
      const result = await runSync(h, [viaBranch, viaRef][i]!, syncId);
      assert.equal(result.status, 'failed');
      const issues = await issueOf(h, syncId);
      assert.deepEqual(
        issues.map((x) => [x.phase, x.code]),
        [['cloning', 'clone_invalid_ref']],
      );
      assert.match(issues[0]!.message, /is not a valid git ref \(it must not start with '-'/);
      assert.match((await getRun(h.db.pool, syncId)).error ?? '', /not a valid git ref/);
    }
    noMarkers();
  });

  it('stored URLs that are options or use a command transport (ext::) are refused at sync start', async () => {
    for (const url of [`--upload-pack=touch ${marker('url-option')}`, `ext::sh -c touch% ${marker('ext')}`]) {
      const sourceId = await insertSource(h.db.pool, { url });
      const syncId = await insertPendingSync(h.db.pool, sourceId);
      assert.equal((await runSync(h, sourceId, syncId)).status, 'failed');
      assert.deepEqual(
        (await issueOf(h, syncId)).map((x) => x.code),
        ['clone_invalid_url'],
        url,
      );
    }
    noMarkers();
  });

  it('under the production policy a local path, file:// and http are refused before git runs', async () => {
    for (const url of [ok.dir, `file://${ok.dir}`, 'http://127.0.0.1:9/acme/r.git']) {
      await assert.rejects(
        checkoutRef({
          url,
          ref: 'main',
          token: null,
          urls: DEFAULT_URL_POLICY,
          dir: join(h.cloneDir, 'production'),
          timeoutMs: 10_000,
          signal: new AbortController().signal,
        }),
        (e: unknown) =>
          e instanceof CloneError &&
          e.code === 'clone_invalid_url' &&
          /does not fetch from \(allowed: https, ssh\)/.test(e.message),
      );
    }
    assert.equal(existsSync(join(h.cloneDir, 'production', '.git')), false, 'git never ran');
  });

  it("a repository's hooks, filters, LFS, fsmonitor and submodule never act, even when a user config asks", async () => {
    // A user config on the worker that would make the repository's content act: hooks from the checkout, a smudge
    // filter and LFS, an fsmonitor command, submodule recursion. The worker's git must read none of it.
    const home = mkdtempSync(join(tmpdir(), 'ckg-home-'));
    const script = (name: string) => `sh -c 'touch ${marker(name)}; cat'`;
    writeFileSync(
      join(home, '.gitconfig'),
      [
        '[core]',
        '\thooksPath = .githooks',
        `\tfsmonitor = ${join(home, 'fsmonitor.sh')}`,
        '[filter "evil"]',
        `\tsmudge = ${script('smudge')}`,
        '\trequired = true',
        '[filter "lfs"]',
        `\tsmudge = ${script('lfs')}`,
        `\tprocess = ${script('lfs-process')}`,
        '[submodule]',
        '\trecurse = true',
        '[protocol "file"]',
        '\tallow = always',
        '',
      ].join('\n'),
    );
    writeFileSync(join(home, 'fsmonitor.sh'), `#!/bin/sh\ntouch ${marker('fsmonitor')}\n`, { mode: 0o755 });
    mkdirSync(join(home, '.config', 'git'), { recursive: true });
    writeFileSync(join(home, '.config', 'git', 'attributes'), '* filter=evil\n');
    const hook = `#!/bin/sh\ntouch ${marker('hook')}\n`;
    const sub = createRepo({ 'inner.ts': 'export const inner = 1;\n' });
    const repo = createRepo({
      'src/app.ts': 'export const app = 1;\n',
      'big.bin': 'version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n',
      '.gitattributes': '*.ts filter=evil\n*.bin filter=lfs diff=lfs merge=lfs\n',
      '.githooks/post-checkout': hook,
      '.githooks/post-merge': hook,
      '.githooks/reference-transaction': hook,
    });
    chmodSync(join(repo.dir, '.githooks', 'post-checkout'), 0o755);
    // The fixture's own git reads no user config (the test changes HOME below).
    const fixtureEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' };
    const fixture = (...args: string[]) =>
      execFileSync('git', ['-C', repo.dir, '-c', 'user.name=t', '-c', 'user.email=t@e.invalid', ...args], {
        env: fixtureEnv,
      });
    fixture('-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub.dir, 'vendor/sub');
    fixture('add', '-A');
    fixture('commit', '-q', '-m', 'x');
    const savedHome = process.env.HOME;
    process.env.HOME = home;
    try {
      const sourceId = await insertSource(h.db.pool, { url: repo.dir });
      // Twice: a fresh clone, then the kept clone's fetch and checkout of a new commit.
      for (let round = 0; round < 2; round++) {
        if (round === 1) {
          writeFileSync(join(repo.dir, 'src', 'app.ts'), 'export const app = 2;\n');
          fixture('commit', '-qam', 'y');
        }
        const syncId = await insertPendingSync(h.db.pool, sourceId);
        const result = await runSync(h, sourceId, syncId);
        assert.equal(result.status, 'completed', JSON.stringify(result));
        const files = await h.db.pool.query<{ file_path: string }>(
          `SELECT file_path FROM file_records WHERE sync_id = $1 ORDER BY file_path`,
          [syncId],
        );
        const paths = files.rows.map((r) => r.file_path);
        assert.ok(paths.includes('src/app.ts'), paths.join(', '));
        assert.ok(!paths.some((p) => p.startsWith('vendor/sub/')), 'the submodule was not fetched');
      }
    } finally {
      process.env.HOME = savedHome;
      repo.remove();
      sub.remove();
      rmSync(home, { recursive: true, force: true });
    }
    assert.equal(existsSync(marker('hook')), false, 'no hook ran');
    noMarkers();
  });
});
