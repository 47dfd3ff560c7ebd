import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createRetentionActivities } from '../../activities/retention/index.ts';
import { writeEvent } from '../../lib/events.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { waitFor } from '../support/wait.ts';
import { startTestIdp, type TestIdp } from '../support/idp-keys.ts';
import { testLogger } from '../support/log.ts';
import { connectSse, type Frame, type SseClient } from '../support/sse-client.ts';

interface Row {
  id: number;
  type: string;
  sync_id: string | null;
  source_id: string | null;
  payload: Record<string, unknown>;
  created_at: string;
}

const rowOf = (f: Frame) => JSON.parse(f.data!) as Row;
const ids = (frames: Frame[]) => frames.map((f) => Number(f.id));

describe('gateway event stream', () => {
  let db: TestDatabase;
  let idp: TestIdp;
  let gw: TestGateway;
  let token: string;
  const open: SseClient[] = [];

  before(async () => {
    db = await createTestDatabase();
    idp = await startTestIdp('test');
    gw = await startGateway({
      DATABASE_URL: db.url,
      KEYCLOAK_URL: idp.url,
      KEYCLOAK_REALM: 'test',
      SSE_HEARTBEAT_SECONDS: '0.2',
      SSE_GAP_WAIT_MS: '1000',
      SSE_CLIENT_BUFFER_BYTES: '262144',
      SSE_CLIENT_STALL_SECONDS: '1',
      GRAPH_SERVICE_URL: 'http://127.0.0.1:1',
      INGESTION_SERVICE_URL: 'http://127.0.0.1:1',
    });
    token = await idp.sign({}, { expiresIn: 3600 });
    await waitFor('hub ready', () => gw.hub.ready, 5000, 10);
  });
  after(async () => {
    for (const c of open) c.close();
    await gw.close();
    await idp.close();
    await db.drop();
  });

  async function connect(query = '', headers: Record<string, string> = {}, tok = token): Promise<SseClient> {
    const c = await connectSse(`${gw.url}/api/events${query}`, { authorization: `Bearer ${tok}`, ...headers });
    open.push(c);
    return c;
  }
  const emit = (type = 'sync_progress', payload: Record<string, unknown> = {}) =>
    writeEvent(db.pool, { type, payload }).then(Number);
  const connectedCount = () => gw.events('sse_client_connected').length;
  /**
   * Emits a sentinel row and waits until `c` has it: frames arrive in id order, so every frame of a row before the
   * sentinel (a duplicate included) has arrived by then. Returns the frames' ids before the sentinel. In place of a
   * fixed sleep before asserting that nothing more came.
   */
  async function idsUpToSentinel(c: SseClient): Promise<number[]> {
    const sentinel = await emit('sync_progress', { sentinel: true });
    await waitFor('the sentinel frame', () => ids(c.events).includes(sentinel), 5000, 10);
    const got = ids(c.events);
    return got.slice(0, got.indexOf(sentinel));
  }

  it('catch-up after last_event_id in id order, then live frames; each frame is the row as JSON', async () => {
    const sourceId = '0b9d2f0e-8f65-4c43-9f5d-2a2b8b0b7a11';
    const first = await emit('sync_lifecycle', { status: 'pending' });
    const stored = [first];
    for (let i = 0; i < 4; i++) stored.push(await emit('sync_progress', { progress_done: i }));
    await waitFor('hub caught up', () => gw.hub.lastId === stored.at(-1), 3000, 10);

    const c = await connect(`?last_event_id=${first}`);
    assert.equal(c.status, 200);
    assert.match(String(c.headers['content-type']), /^text\/event-stream/);
    assert.equal(c.headers['cache-control'], 'no-cache, no-transform');
    await c.waitForEvents(4);
    assert.deepEqual(ids(c.events), stored.slice(1));
    await waitFor('sse_replay', () => gw.events('sse_replay').some((l) => l.after === first && l.rows === 4), 2000, 10);

    const live = Number(
      await writeEvent(db.pool, { type: 'source_changed', sourceId, payload: { change: 'updated' } }),
    );
    const frames = await c.waitForEvents(5);
    const last = frames[4]!;
    assert.equal(Number(last.id), live);
    assert.equal(last.event, 'source_changed');
    const row = rowOf(last);
    const dbRow = (await db.pool.query<{ created_at: Date }>('SELECT created_at FROM events WHERE id = $1', [live]))
      .rows[0]!;
    assert.deepEqual(
      { ...row, created_at: undefined },
      {
        id: live,
        type: 'source_changed',
        sync_id: null,
        source_id: sourceId,
        payload: { change: 'updated' },
        created_at: undefined,
      },
    );
    assert.equal(new Date(row.created_at).getTime(), dbRow.created_at.getTime());
    assert.match(row.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/);
    c.close();
  });

  it('without a resume id the stream starts live, with no catch-up', async () => {
    const before = await emit();
    await waitFor('hub past the earlier row', () => gw.hub.lastId === before, 3000, 10);
    const c = await connect();
    await waitFor('first heartbeat', () => c.frames.some((f) => f.comment === 'heartbeat'), 2000, 10);
    assert.equal(c.events.length, 0);
    const id = await emit();
    await c.waitForEvents(1);
    assert.deepEqual(ids(c.events), [id]);
    c.close();
  });

  for (const how of ['header', 'query'] as const) {
    it(`resume by ${how}: no gap and no duplicate across a reconnect`, async () => {
      const a = await connect();
      const sent: number[] = [];
      for (let i = 0; i < 3; i++) sent.push(await emit('sync_progress', { i }));
      await a.waitForEvents(3);
      a.close();
      const lastSeen = Number(a.events.at(-1)!.id);
      for (let i = 0; i < 4; i++) sent.push(await emit('sync_progress', { i: i + 3 }));
      const b =
        how === 'header'
          ? await connect('', { 'last-event-id': String(lastSeen) })
          : await connect(`?last_event_id=${lastSeen}`);
      await b.waitForEvents(4);
      sent.push(await emit('sync_progress', { i: 7 }));
      await b.waitForEvents(5);
      assert.deepEqual([...ids(a.events), ...(await idsUpToSentinel(b))], sent);
      b.close();
    });
  }

  it('the Last-Event-ID header wins over last_event_id', async () => {
    const x = await emit();
    const y = await emit();
    await waitFor('hub caught up', () => gw.hub.lastId === y, 5000, 10);
    const c = await connect(`?last_event_id=0`, { 'last-event-id': String(x) });
    await c.waitForEvents(1);
    assert.deepEqual(await idsUpToSentinel(c), [y]);
    c.close();
  });

  it('a bad resume id is 400 INVALID_ARGUMENT naming it', async () => {
    for (const [query, headers, field] of [
      ['', { 'last-event-id': 'abc' }, 'Last-Event-ID'],
      ['?last_event_id=-1', {}, 'last_event_id'],
      ['?last_event_id=1.5', {}, 'last_event_id'],
    ] as const) {
      const c = await connect(query, headers);
      assert.equal(c.status, 400);
      await c.waitForEnd();
      const body = JSON.parse(c.body) as { error: { code: string; field: string } };
      assert.equal(body.error.code, 'INVALID_ARGUMENT');
      assert.equal(body.error.field, field);
    }
  });

  it('a failure before the stream opens is a normal 401', async () => {
    const c = await connectSse(`${gw.url}/api/events`);
    assert.equal(c.status, 401);
    await c.waitForEnd();
    assert.equal((JSON.parse(c.body) as { error: { code: string } }).error.code, 'UNAUTHORIZED');
  });

  it('heartbeat comments keep the stream alive', async () => {
    const c = await connect();
    await waitFor('two heartbeats', () => c.frames.filter((f) => f.comment === 'heartbeat').length >= 2, 2000, 10);
    c.close();
  });

  it('the listener connection killed mid-stream: it reconnects and nothing is lost or repeated', async () => {
    const c = await connect();
    const sent = [await emit('sync_progress', { phase: 'before' })];
    await c.waitForEvents(1);
    const oldPid = gw.hub.listenerPid!;
    await db.pool.query('SELECT pg_terminate_backend($1)', [oldPid]);
    for (let i = 0; i < 5; i++) sent.push(await emit('sync_progress', { phase: 'while-down', i }));
    await waitFor('new listener', () => gw.hub.listenerPid !== undefined && gw.hub.listenerPid !== oldPid, 10000, 10);
    for (let i = 0; i < 3; i++) sent.push(await emit('sync_progress', { phase: 'after', i }));
    await c.waitForEvents(sent.length);
    assert.deepEqual(await idsUpToSentinel(c), sent);
    assert.ok(gw.events('sse_listener_lost').length >= 1);
    assert.ok(gw.events('sse_listener_reconnected').length >= 1);
    c.close();
  });

  it('a transaction that commits late: later ids wait for it, then both arrive in id order', async () => {
    const c = await connect();
    const slow = await db.pool.connect();
    try {
      await slow.query('BEGIN');
      const early = Number(await writeEvent(slow, { type: 'sync_lifecycle', payload: { late: true } }));
      const later = await emit('sync_progress', { after: 'late' });
      assert.ok(later > early);
      // The hub has read the later row and holds it at the hole (its debug line), and the client has nothing.
      await waitFor('the hole seen', () => gw.events('sse_gap_seen').some((l) => l.next_id === later), 5000, 10);
      assert.equal(c.events.length, 0, 'the later row is held while the hole may still fill');
      await slow.query('COMMIT');
      await c.waitForEvents(2);
      assert.deepEqual(ids(c.events), [early, later]);
    } finally {
      slow.release();
    }
    c.close();
  });

  it('a rolled-back hole delays later rows at most SSE_GAP_WAIT_MS', async () => {
    const c = await connect();
    const slow = await db.pool.connect();
    try {
      await slow.query('BEGIN');
      await writeEvent(slow, { type: 'sync_lifecycle', payload: { doomed: true } });
      const later = await emit('sync_progress', { after: 'rollback' });
      await slow.query('ROLLBACK');
      const t0 = performance.now();
      await c.waitForEvents(1, 3000);
      const waited = performance.now() - t0;
      assert.deepEqual(ids(c.events), [later]);
      assert.ok(waited < 1500, `waited ${waited.toFixed(0)} ms`);
    } finally {
      slow.release();
    }
    c.close();
  });

  it('a row committed after its hole was given up on still arrives, as a late frame without id', async () => {
    const c = await connect();
    const slow = await db.pool.connect();
    let early: number;
    let later: number;
    try {
      await slow.query('BEGIN');
      early = Number(await writeEvent(slow, { type: 'sync_lifecycle', payload: { very: 'late' } }));
      later = await emit('sync_progress', { after: 'very late' });
      await c.waitForEvents(1, 3000);
      assert.deepEqual(ids(c.events), [later]);
      await slow.query('COMMIT');
    } finally {
      slow.release();
    }
    await c.waitForEvents(2);
    const lateFrame = c.events[1]!;
    assert.equal(lateFrame.id, undefined, 'no id line: Last-Event-ID does not move back');
    assert.equal(rowOf(lateFrame).id, early);
    assert.equal(lateFrame.event, 'sync_lifecycle');
    // A resume from the last id neither repeats the later row nor the late one.
    const next = await emit();
    const r = await connect('', { 'last-event-id': String(later) });
    await r.waitForEvents(1);
    assert.deepEqual(await idsUpToSentinel(r), [next]);
    c.close();
    r.close();
  });

  it('when the token expires on an open stream: event error {"code":"token_expired"} and the stream ends', async () => {
    const short = await idp.sign({}, { expiresIn: 2 });
    const c = await connectSse(`${gw.url}/api/events?token=${short}`);
    open.push(c);
    assert.equal(c.status, 200);
    await c.waitForEnd(5000);
    const last = c.frames.at(-1)!;
    assert.equal(last.event, 'error');
    assert.deepEqual(JSON.parse(last.data!), { code: 'token_expired' });
    assert.ok(gw.events('sse_client_disconnected').some((l) => l.reason === 'token_expired'));
  });

  it('200 concurrent clients each receive every frame, in order', async () => {
    const before = connectedCount();
    const openBefore = gw.hub.clientCount;
    const clients = await Promise.all(Array.from({ length: 200 }, () => connect()));
    assert.ok(clients.every((c) => c.status === 200));
    await waitFor('200 connected', () => connectedCount() - before === 200, 5000, 10);
    const sent: number[] = [];
    for (let i = 0; i < 20; i++) sent.push(await emit('sync_progress', { i }));
    await Promise.all(clients.map((c) => c.waitForEvents(20)));
    for (const c of clients) assert.deepEqual(ids(c.events), sent);
    for (const c of clients) c.close();
    await waitFor('all 200 disconnected', () => gw.hub.clientCount === openBefore, 5000, 10);
  });

  it('a client that stops reading is dropped without holding up the others', async () => {
    const u = new URL(gw.url);
    let stalledRes: http.IncomingMessage | undefined;
    const stalled = http.get(
      { host: u.hostname, port: u.port, path: '/api/events', headers: { authorization: `Bearer ${token}` } },
      (res) => {
        stalledRes = res;
        res.pause(); // never reads again
      },
    );
    stalled.on('error', () => undefined);
    await waitFor('stalled client connected', () => stalledRes, 3000, 10);
    const stalledPort = stalled.socket!.localPort;
    const healthy = await connect();
    await waitFor('two clients', () => gw.hub.clientCount >= 2, 3000, 10);
    const big = 'x'.repeat(20_000);
    let n = 0;
    const t0 = performance.now();
    const dropped = () => gw.events('sse_client_disconnected').filter((l) => l.reason === 'slow_client');
    while (dropped().length === 0) {
      await emit('sync_progress', { big, n: n++ });
      if (performance.now() - t0 > 20000) assert.fail('the stalled client was never dropped');
    }
    assert.deepEqual(
      dropped().map((l) => String(l.remote).split(':').pop()),
      [String(stalledPort)],
      'the stalled client was the one dropped',
    );
    await healthy.waitForEvents(n, 10000);
    assert.equal(healthy.events.length, n, 'the reading client got every frame');
    assert.equal(healthy.ended, false, 'and is still connected');
    stalled.destroy();
    healthy.close();
  });

  it('a burst larger than the client buffer while the client joins: all rows, in order, nobody dropped', async () => {
    const from = gw.hub.lastId!;
    const live = await connect(); // live before the burst: it lags, drains and is caught up from the table
    await db.pool.query(
      `INSERT INTO events (type, payload)
       SELECT 'sync_progress', jsonb_build_object('n', g, 'pad', repeat('x', 100)) FROM generate_series(1, 20000) g`,
    );
    const head = await emit(); // its NOTIFY sets the hub paging through 20k rows; a client joins meanwhile
    const c = await connect(`?last_event_id=${from}`);
    const more = [await emit(), await emit()];
    const sentinel = await emit('sync_progress', { sentinel: true });
    for (const client of [c, live]) {
      await waitFor('the sentinel frame', () => ids(client.events).includes(sentinel), 20000, 10);
      const all = ids(client.events);
      const got = all.slice(0, all.indexOf(sentinel));
      assert.equal(got.length, 20003, '~4 MB of frames, far more than SSE_CLIENT_BUFFER_BYTES');
      assert.equal(got[0], from + 1);
      for (let i = 1; i < got.length; i++) assert.equal(got[i], got[i - 1]! + 1);
      assert.deepEqual(got.slice(-3), [head, ...more]);
      assert.equal(client.ended, false);
    }
    c.close();
    live.close();
  });

  it('resuming from before pruned rows: an events_missed frame, then the kept rows, then live', async () => {
    const first = await emit('sync_progress', { n: 0 });
    const old = [first];
    for (let i = 1; i < 3; i++) old.push(await emit('sync_progress', { n: i }));
    const kept = [await emit('sync_progress', { n: 3 }), await emit('sync_progress', { n: 4 })];
    await waitFor('hub caught up', () => gw.hub.lastId === kept.at(-1), 3000, 10);
    // Every row up to the third is older than the retention age; the pruner (the retention activity) deletes them.
    await db.pool.query(`UPDATE events SET created_at = now() - interval '3 days' WHERE id <= $1`, [old.at(-1)]);
    const pruner = createRetentionActivities({ pool: db.pool, log: testLogger('retention-test') });
    const pruned = await pruner.pruneEvents({ eventMaxAgeHours: 24 });
    assert.equal(pruned.prunedThrough, old.at(-1));
    const left = await db.pool.query('SELECT 1 FROM events WHERE id <= $1', [old.at(-1)]);
    assert.equal(left.rowCount, 0);

    const c = await connect(`?last_event_id=${first}`);
    await c.waitForEvents(3);
    const [missed, ...rest] = c.events;
    assert.equal(missed!.event, 'events_missed');
    assert.equal(missed!.id, undefined, 'no id line: a reconnect from the same id is told again');
    assert.deepEqual(JSON.parse(missed!.data!), {
      code: 'events_missed',
      last_event_id: first,
      pruned_through: old.at(-1),
    });
    assert.deepEqual(ids(rest), kept);
    const live = await emit('sync_progress', { n: 5 });
    const frames = await c.waitForEvents(4);
    assert.equal(Number(frames[3]!.id), live);
    c.close();

    // Resuming from the watermark itself (or later) missed nothing: no such frame.
    const d = await connect(`?last_event_id=${old.at(-1)}`);
    const got = await d.waitForEvents(3);
    assert.deepEqual(
      got.map((f) => f.event),
      ['sync_progress', 'sync_progress', 'sync_progress'],
    );
    assert.deepEqual(ids(got), [...kept, live]);
    d.close();
  });
});
