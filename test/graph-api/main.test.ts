// The graph component's process entry (graph-api/main.ts): starts from the environment, logs graph_api_started,
// serves, stops cleanly on SIGTERM (graph_api_stopping, graph_api_stopped, exit 0); a bad variable is named, exit 1.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { runEntry } from '../standins/helpers.ts';

describe('graph-api/main.ts', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  it('starts, serves /health, and stops cleanly on SIGTERM', async () => {
    const p = runEntry('graph-api/main.ts', { DATABASE_URL: db.url, APP_PORT: '0', APP_HOST: '127.0.0.1' });
    const started = await p.waitFor('graph_api_started', 60_000);
    const res = await fetch(`http://127.0.0.1:${String(started.port)}/health`);
    assert.deepEqual(await res.json(), { status: 'ok' });
    assert.equal(await p.stop(), 0);
    const events = p.lines.map((l) => l.event);
    assert.deepEqual(events.slice(events.indexOf('graph_api_stopping')), ['graph_api_stopping', 'graph_api_stopped']);
    assert.equal(p.lines.find((l) => l.event === 'graph_api_stopping')?.signal, 'SIGTERM');
  });

  it('a bad variable: graph_api_start_failed naming it, exit 1', async () => {
    const p = runEntry('graph-api/main.ts', { DATABASE_URL: db.url, APP_PORT: 'eighty' });
    assert.equal(await p.exited, 1);
    const failed = p.lines.find((l) => l.event === 'graph_api_start_failed');
    assert.match(JSON.stringify(failed?.error), /APP_PORT/);
  });
});
