// lib/main.ts runMain, the scaffolding of every entry point, run as a real process (test/support/main-fixture.ts):
// the lifecycle events it logs and the exit codes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runEntry } from '../standins/helpers.ts';

const ENTRY = 'test/support/main-fixture.ts';
const run = (mode: string) => runEntry(ENTRY, { FIXTURE_MODE: mode });
const events = (lines: Record<string, unknown>[]) => lines.map((l) => l.event);

describe('runMain', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: <name>_stopping with the signal, close(), <name>_stopped, exit 0`, async () => {
      const p = run('ok');
      await p.waitFor('fixture_started');
      p.child.kill(signal);
      assert.equal(await p.exited, 0);
      assert.deepEqual(events(p.lines), ['fixture_started', 'fixture_stopping', 'fixture_stopped']);
      assert.equal(p.lines[1]?.signal, signal);
      assert.equal(p.lines[2]?.signal, signal);
    });
  }

  it('a component whose close() logs <name>_stopped itself: the line is not written twice', async () => {
    const p = run('ok-logs-stopped');
    await p.waitFor('fixture_started');
    assert.equal(await p.stop(), 0);
    assert.deepEqual(events(p.lines), ['fixture_started', 'fixture_stopping', 'fixture_stopped']);
    assert.equal(p.lines[2]?.by, 'close');
  });

  it('a signal while the component starts: it is stopped once it has started, exit 0', async () => {
    const p = run('slow-start');
    await p.waitFor('fixture_starting');
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
    assert.deepEqual(events(p.lines), ['fixture_starting', 'fixture_stopping', 'fixture_started', 'fixture_stopped']);
  });

  it('a start that rejects: <name>_start_failed with the error, exit 1', async () => {
    const p = run('start-rejects');
    assert.equal(await p.exited, 1);
    assert.deepEqual(events(p.lines), ['fixture_start_failed']);
    assert.match(JSON.stringify(p.lines[0]?.error), /cannot listen/);
  });

  it('a bad variable thrown before the first await: config_invalid naming it where asked, else a failed start', async () => {
    const named = run('config-named');
    assert.equal(await named.exited, 1);
    assert.deepEqual(events(named.lines), ['config_invalid']);
    assert.equal(named.lines[0]?.variable, 'FIXTURE_PORT');

    const plain = run('config');
    assert.equal(await plain.exited, 1);
    assert.deepEqual(events(plain.lines), ['fixture_start_failed']);
    assert.match(JSON.stringify(plain.lines[0]?.error), /FIXTURE_PORT: must be an integer/);
  });

  it('a close() that never ends: <name>_stop_timed_out after the stop bound, exit 1 (issue 10)', async () => {
    const p = run('close-hangs');
    await p.waitFor('fixture_started');
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 1);
    assert.deepEqual(events(p.lines), ['fixture_started', 'fixture_stopping', 'fixture_stop_timed_out']);
    assert.equal(p.lines[2]?.ms, 300);
  });

  it('a close() that rejects: <name>_stop_failed, exit 1', async () => {
    const p = run('close-rejects');
    await p.waitFor('fixture_started');
    assert.equal(await p.stop(), 1);
    assert.deepEqual(events(p.lines), ['fixture_started', 'fixture_stopping', 'fixture_stop_failed']);
    assert.match(JSON.stringify(p.lines[2]?.error), /cannot drain/);
  });

  it('a run loop that fails after the start: the failed event, exit 1', async () => {
    const p = run('done-rejects');
    assert.equal(await p.exited, 1);
    assert.deepEqual(events(p.lines), ['fixture_started', 'fixture_failed']);
    assert.match(JSON.stringify(p.lines[1]?.error), /run loop failed/);
  });
});
