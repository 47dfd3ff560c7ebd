/**
 * Determinism guard: the saved histories of the sync workflow (completed, a light re-sync, failed, signalled with bad
 * inputs and a queued retry) and of the schedules' trigger, captured on each day the workflows changed, replay
 * against today's workflow code. A change that would break workflows already running fails here; record new
 * histories with scripts/capture-histories.ts only when that break is intended (and handled with patching). The
 * histories of workflows started before the sync workflow's patches were retired (deprecatePatch, docs/pipeline.md
 * "Versioning") are no longer replayed: no such workflow may be open when this code runs.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { historyFromText, loadHistory } from '../support/histories.ts';
import { PRECISE_EARLY_PATCH } from '../../workflows/sync-patches.ts';
import { Worker } from '@temporalio/worker';
import { workflowSource } from '../../temporal/bundler.ts';
import { prebuiltWorkflows, quietRuntime } from '../support/temporal.ts';

const DIR = new URL('../fixtures/histories/', import.meta.url);

quietRuntime();

/** Today's workflow code: the bundle the test runner built for this run from workflows/, else bundled here. */
const workflows = () => workflowSource(prebuiltWorkflows().workflowBundlePath);

describe('replay of saved workflow histories', () => {
  it('every saved history replays without nondeterminism', async () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
    // Every day's captures that today's code must replay (scripts/capture-histories.ts names them); those of
    // 2026-11-28 hold a marker of every patch of the sync workflow (a light re-sync among them).
    for (const f of [
      'scheduled-trigger',
      'sync-failed-2026-11-27',
      'sync-completed-2026-11-28',
      'sync-light-2026-11-28',
      'sync-failed-2026-11-28',
      'sync-signals-2026-11-28',
      'scheduled-trigger-2026-11-28',
      // Today's path: the precise tier's indexers started right after the clone (patch precise-starts-after-clone).
      'sync-completed-2026-11-28-precise-early',
      'sync-light-2026-11-28-precise-early',
      'sync-failed-2026-11-28-precise-early',
      'sync-signals-2026-11-28-precise-early',
      'scheduled-trigger-2026-11-28-precise-early',
    ]) {
      assert.ok(files.includes(`${f}.json`), f);
    }
    const histories = files.map((f) => ({
      workflowId: f.replace(/\.json$/, ''),
      history: loadHistory(new URL(f, DIR)),
    }));
    const replayed: string[] = [];
    for await (const r of Worker.runReplayHistories(workflows(), histories)) {
      assert.equal(r.error, undefined, `${r.workflowId}: ${String(r.error)}`);
      replayed.push(r.workflowId);
    }
    assert.deepEqual(replayed.sort(), histories.map((h) => h.workflowId).sort());
  });

  it("the captures of today's path hold the marker of the precise tier starting after the clone", () => {
    // A marker's patch id is a JSON payload, base64 in the exported history.
    const markers = (name: string) =>
      [...readFileSync(new URL(name, DIR), 'utf8').matchAll(/"data":\s*"([A-Za-z0-9+/=]+)"/g)]
        .map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'))
        .filter((d) => d.startsWith('{"id":'))
        .map((d) => (JSON.parse(d) as { id: string }).id);
    assert.ok(markers('sync-completed-2026-11-28-precise-early.json').includes(PRECISE_EARLY_PATCH));
    assert.ok(!markers('sync-completed-2026-11-28.json').includes(PRECISE_EARLY_PATCH));
  });

  it('a history the code would not make again fails the replay', async () => {
    // As if the code had scheduled another activity where the history has the first parse.
    const json = readFileSync(new URL('sync-completed-2026-11-28.json', DIR), 'utf8').replace(
      '"parseBatch"',
      '"parseEverything"',
    );
    await assert.rejects(
      Worker.runReplayHistory(workflows(), historyFromText(json)),
      (err: unknown) => err instanceof Error && /nondetermin/i.test(`${err.name} ${err.message}`),
    );
  });
});
