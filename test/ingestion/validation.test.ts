// Validation, unknown ids, health and the OpenAPI document of the ingestion component: every body field and path
// id is a 400 INVALID_ARGUMENT naming it, and a refused request changes nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { insertSource } from '../support/fixtures.ts';
import { startHarness, type Harness } from '../support/ingestion/harness.ts';

interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

const UNKNOWN = '00000000-0000-4000-8000-0000000000ff';

describe('ingestion: validation, unknown ids, health, OpenAPI', () => {
  let h: Harness;
  let sourceId: string;
  before(async () => {
    h = await startHarness();
    sourceId = await insertSource(h.db.pool);
  });
  after(async () => {
    await h.close();
  });

  async function expect400(method: string, path: string, body: unknown, field: string): Promise<void> {
    const res = await h.api<ErrorBody>(method, path, body);
    assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error.code, 'INVALID_ARGUMENT');
    assert.equal(res.body.error.field, field, `${method} ${path} ${JSON.stringify(body)}`);
    assert.match(res.body.error.message, new RegExp(`^${field}: `));
  }

  async function counts(): Promise<[number, number, number]> {
    const r = await h.db.pool.query<{ s: string; c: string; e: string }>(
      `SELECT (SELECT count(*) FROM sync_runs) AS s, (SELECT count(*) FROM schedules) AS c, (SELECT count(*) FROM events) AS e`,
    );
    return [Number(r.rows[0]!.s), Number(r.rows[0]!.c), Number(r.rows[0]!.e)];
  }

  it('POST /api/syncs/{id}/embed: 400 for a bad id, 404 for an unknown sync, 409 unless completed', async () => {
    await expect400('POST', '/api/syncs/not-a-uuid/embed', undefined, 'sync_id');
    const unknown = await h.api<ErrorBody>('POST', `/api/syncs/${UNKNOWN}/embed`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'NOT_FOUND');
    const failed = await h.db.pool.query<{ id: string }>(
      `INSERT INTO sync_runs (source_id, status) VALUES ($1, 'failed') RETURNING id`,
      [sourceId],
    );
    const res = await h.api<ErrorBody>('POST', `/api/syncs/${failed.rows[0]!.id}/embed`);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'FAILED_PRECONDITION');
    await h.db.pool.query(`DELETE FROM sync_runs WHERE id = $1`, [failed.rows[0]!.id]);
  });

  it('POST /api/syncs: each body field is validated and named', async () => {
    const before = await counts();
    const cases: Array<[unknown, string]> = [
      [{}, 'source_id'],
      [{ source_id: '' }, 'source_id'],
      [{ source_id: 'not-a-uuid' }, 'source_id'],
      [{ source_id: 42 }, 'source_id'],
      [{ source_id: sourceId, triggered_by: 7 }, 'triggered_by'],
      [{ source_id: sourceId, triggered_by: '  ' }, 'triggered_by'],
      [{ source_id: sourceId, triggered_by: 'x'.repeat(201) }, 'triggered_by'],
      [{ source_id: sourceId, ref: 'a..b' }, 'ref'],
      [{ source_id: sourceId, ref: 'has space' }, 'ref'],
      [{ source_id: sourceId, ref: 'x.lock' }, 'ref'],
      [{ source_id: sourceId, ref: ['main'] }, 'ref'],
      [{ source_id: sourceId, config_overrides: ['a'] }, 'config_overrides'],
      [{ source_id: sourceId, config_overrides: 'a' }, 'config_overrides'],
      [{ source_id: sourceId, config_overrides: { incremental: 'no' } }, 'config_overrides.incremental'],
      [{ source_id: sourceId, config_overrides: { embeddings: 0 } }, 'config_overrides.embeddings'],
      [{ source_id: sourceId, config_overrides: { symbol_graph: 'off' } }, 'config_overrides.symbol_graph'],
      [{ source_id: sourceId, config_overrides: { include_paths: 'src' } }, 'config_overrides.include_paths'],
      [{ source_id: sourceId, sourceId }, 'sourceId'],
      [['not', 'an', 'object'], 'body'],
    ];
    for (const [body, field] of cases) await expect400('POST', '/api/syncs', body, field);
    const malformed = await h.raw('POST', '/api/syncs', '{"source_id": ');
    assert.equal(malformed.status, 400);
    assert.equal((malformed.body as unknown as ErrorBody).error.field, 'body');
    assert.deepEqual(await counts(), before, 'a refused request changes nothing');
  });

  it('sync commands: the path id and the cancel reason are validated; unknown syncs are 404', async () => {
    for (const [method, suffix] of [
      ['POST', '/cancel'],
      ['POST', '/retry'],
      ['POST', '/clean'],
      ['DELETE', '/clean'],
      ['DELETE', ''],
    ] as const) {
      await expect400(method, `/api/syncs/nope${suffix}`, undefined, 'sync_id');
      const res = await h.api<ErrorBody>(method, `/api/syncs/${UNKNOWN}${suffix}`);
      assert.equal(res.status, 404, `${method} ${suffix}`);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    }
    await expect400('POST', `/api/syncs/${UNKNOWN}/cancel`, { reason: 5 }, 'reason');
    await expect400('POST', `/api/syncs/${UNKNOWN}/cancel`, { reason: 'x'.repeat(1001) }, 'reason');
    await expect400('POST', `/api/syncs/${UNKNOWN}/cancel`, { why: 'x' }, 'why');
    await expect400('POST', `/api/syncs/${UNKNOWN}/retry`, { force: true }, 'force');
  });

  it('POST /api/schedules: each body field is validated and named', async () => {
    const before = await counts();
    const cases: Array<[unknown, string]> = [
      [{ interval_minutes: 5 }, 'source_id'],
      [{ source_id: 'x', interval_minutes: 5 }, 'source_id'],
      [{ source_id: sourceId }, 'interval_minutes'],
      [{ source_id: sourceId, interval_minutes: 0 }, 'interval_minutes'],
      [{ source_id: sourceId, interval_minutes: -5 }, 'interval_minutes'],
      [{ source_id: sourceId, interval_minutes: 1.5 }, 'interval_minutes'],
      [{ source_id: sourceId, interval_minutes: '5' }, 'interval_minutes'],
      [{ source_id: sourceId, interval_minutes: 525_601 }, 'interval_minutes'],
      [{ source_id: sourceId, interval_minutes: 5, config_overrides: [] }, 'config_overrides'],
      [{ source_id: sourceId, interval_minutes: 5, enabled: 'yes' }, 'enabled'],
      [{ source_id: sourceId, interval_minutes: 5, every: 5 }, 'every'],
    ];
    for (const [body, field] of cases) await expect400('POST', '/api/schedules', body, field);
    assert.deepEqual(await counts(), before);
  });

  it('PATCH and DELETE /api/schedules/{id}: path id and body validated; unknown schedule 404', async () => {
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      await expect400('PATCH', `/api/schedules/${bad}`, { enabled: true }, 'schedule_id');
      await expect400('DELETE', `/api/schedules/${bad}`, undefined, 'schedule_id');
    }
    await expect400('PATCH', '/api/schedules/1', {}, 'body');
    await expect400('PATCH', '/api/schedules/1', { enabled: 'false' }, 'enabled');
    await expect400('PATCH', '/api/schedules/1', { interval_minutes: 0 }, 'interval_minutes');
    await expect400('PATCH', '/api/schedules/1', { config_overrides: 3 }, 'config_overrides');
    await expect400('PATCH', '/api/schedules/1', { enabled: true, source_id: sourceId }, 'source_id');
    assert.equal((await h.api('PATCH', '/api/schedules/999999', { enabled: false })).status, 404);
    assert.equal((await h.api('DELETE', '/api/schedules/999999')).status, 404);
  });

  it('/ingest/*: path ids validated; unknown workflow or schedule 404', async () => {
    await expect400('DELETE', '/ingest/sources/zzz', undefined, 'source_id');
    await expect400('GET', '/ingest/workflows/zzz', undefined, 'source_id');
    await expect400('GET', '/ingest/schedules/zzz', undefined, 'schedule_id');
    assert.equal((await h.api('GET', `/ingest/workflows/${UNKNOWN}`)).status, 404);
    assert.equal((await h.api('GET', '/ingest/schedules/424242')).status, 404);
  });

  it('unknown routes are 404 NOT_FOUND in the one error shape', async () => {
    const res = await h.api<ErrorBody>('GET', '/api/nothing');
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'NOT_FOUND');
  });

  it('GET /health is { status: "ok" }', async () => {
    const res = await h.api('GET', '/health');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });

  it('GET /openapi.json is an OpenAPI 3.1 document naming every route of the component', async () => {
    const res = await h.api<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(
      'GET',
      '/openapi.json',
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    const ops = Object.entries(res.body.paths).flatMap(([p, m]) =>
      Object.keys(m).map((k) => `${k.toUpperCase()} ${p}`),
    );
    for (const op of [
      'GET /health',
      'POST /api/syncs',
      'POST /api/syncs/{sync_id}/cancel',
      'POST /api/syncs/{sync_id}/retry',
      'POST /api/syncs/{sync_id}/clean',
      'DELETE /api/syncs/{sync_id}/clean',
      'DELETE /api/syncs/{sync_id}',
      'POST /api/schedules',
      'PATCH /api/schedules/{schedule_id}',
      'DELETE /api/schedules/{schedule_id}',
      'DELETE /ingest/sources/{source_id}',
      'GET /ingest/workflows/{source_id}',
      'GET /ingest/schedules/{schedule_id}',
    ]) {
      assert.ok(ops.includes(op), `${op} is documented`);
    }
  });

  it('a source token never reaches a response, a log line or the workflow memo', async () => {
    const secret = 'ghp_SECRETSECRETSECRET0123456789';
    const s = await insertSource(h.db.pool);
    await h.db.pool.query(`INSERT INTO source_secrets (source_id, access_token) VALUES ($1, $2)`, [s, secret]);
    const res = await h.api<{ id: string }>('POST', '/api/syncs', { source_id: s });
    assert.equal(res.status, 201);
    assert.ok(!JSON.stringify(res.body).includes(secret));
    const d = await h.client.workflow.getHandle(s).describe();
    assert.ok(!JSON.stringify(d.memo).includes(secret));
    const history = await h.client.workflow.getHandle(s).fetchHistory();
    assert.ok(!JSON.stringify(history).includes(Buffer.from(secret).toString('base64')));
    assert.ok(!JSON.stringify(history).includes(secret));
    await h.api('POST', `/api/syncs/${res.body.id}/cancel`);
    assert.ok(!JSON.stringify(h.logs).includes(secret));
  });
});
