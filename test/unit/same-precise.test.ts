// When an unchanged re-sync may share its predecessor's graph as far as the precise tier goes (activities/graph-alias.ts
// samePrecise): the tier would leave the graph as it left the predecessor's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { samePrecise } from '../../activities/graph-alias.ts';

const TS = 'scip-typescript 0.4.0';
const live = (entries: Record<string, string[]>) =>
  new Map(Object.entries(entries).map(([l, versions]) => [l, new Set(versions)]));
const failed = (reason: string, indexer?: string) => ({ status: 'failed', reason, ...(indexer ? { indexer } : {}) });

describe('samePrecise: the precise outcome an unchanged re-sync would get', () => {
  it('indexed or reused then: the same (the shared graph holds the precise edges)', () => {
    assert.equal(samePrecise({ go: { status: 'indexed' } }, ['go'], true, live({ go: ['v1'] })), true);
    assert.equal(samePrecise({ go: { status: 'reused' } }, ['go'], true, live({})), true);
  });

  it('skipped then: the same while no worker runs the language, not once one does', () => {
    assert.equal(samePrecise({ go: { status: 'skipped' } }, ['go'], true, live({})), true);
    assert.equal(samePrecise({ go: { status: 'skipped' } }, ['go'], true, live({ go: ['v1'] })), false);
    assert.equal(samePrecise(null, ['go'], true, live({ go: ['v1'] })), false);
  });

  it("an indexer's own failure on the commit is not tried again by the same indexer version", () => {
    const previous = { go: { status: 'indexed' }, typescript: failed('precise_indexer_failed', TS) };
    assert.equal(samePrecise(previous, ['go', 'javascript'], true, live({ go: ['v1'], typescript: [TS] })), true);
    const unreadable = { typescript: failed('precise_index_unreadable', TS) };
    assert.equal(samePrecise(unreadable, ['typescript'], true, live({ typescript: [TS] })), true);
  });

  it('a failure is tried again by another indexer version, or when a live worker runs another one', () => {
    const previous = { typescript: failed('precise_indexer_failed', TS) };
    assert.equal(samePrecise(previous, ['typescript'], true, live({ typescript: ['scip-typescript 0.5.0'] })), false);
    assert.equal(
      samePrecise(previous, ['typescript'], true, live({ typescript: [TS, 'scip-typescript 0.5.0'] })),
      false,
    );
    // Recorded before the version was kept with a failure: tried again.
    assert.equal(
      samePrecise({ typescript: failed('precise_indexer_failed') }, ['tsx'], true, live({ typescript: [TS] })),
      false,
    );
  });

  it('timeouts, memory limits and lost clones are tried again (they depend on the moment, not the commit)', () => {
    for (const reason of [
      'precise_timeout',
      'precise_memory_limit',
      'precise_clone_failed',
      'precise_indexer_missing',
    ]) {
      const previous = { typescript: failed(reason, TS) };
      assert.equal(samePrecise(previous, ['typescript'], true, live({ typescript: [TS] })), false, reason);
    }
  });

  it('languages absent from the tree do not count; with the tier off only a graph without precise edges is the same', () => {
    const previous = { java: failed('precise_timeout', 'scip-java 0.10.3'), go: { status: 'indexed' } };
    assert.equal(samePrecise(previous, ['go'], true, live({ java: ['scip-java 0.10.3'] })), true);
    assert.equal(samePrecise({ go: { status: 'skipped' } }, ['go'], false, live({})), true);
    assert.equal(samePrecise({ go: { status: 'indexed' } }, ['go'], false, live({})), false);
  });
});
