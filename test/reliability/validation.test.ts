/**
 * Issue 10 regressions: one validator for both components (lib/validate.ts). NUL bytes, invalid UTF-8 and non-UUID
 * cursor ids used to reach PostgreSQL and come back as 500; `{"url": null}` reset a source's URL to a default; a
 * 431 had an empty body and a 60 kB URL got a reset connection; the two components disagreed on null and trimming.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { encodeCursor } from '../../lib/validate.ts';
import { insertSource, insertSync } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';

interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

/** A raw request (bytes as given, no client-side encoding), its status, headers and parsed JSON body. */
function raw(
  base: string,
  method: string,
  path: string,
  body?: Buffer,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; json: ErrorBody }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path,
        headers: { ...(body ? { 'content-type': 'application/json', 'content-length': body.length } : {}), ...headers },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) as ErrorBody });
          } catch (err) {
            reject(new Error(`not JSON (${res.statusCode}): ${text.slice(0, 200)}`, { cause: err }));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('reliability: one request validator', () => {
  let app: GraphTestApp;
  let src: string;
  let ingestion: string;

  before(async () => {
    app = await startGraphTestApp();
    src = await insertSource(app.db.pool);
    await insertSync(app.db.pool, src);
    ingestion = app.ingestion!.url;
  });
  after(() => app.close());

  async function expect400(base: string, method: string, path: string, body: unknown, field: string) {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const r = await raw(base, method, path, bytes);
    assert.equal(r.status, 400, `${method} ${path} → ${r.status} ${JSON.stringify(r.json)}`);
    assert.equal(r.json.error.code, 'INVALID_ARGUMENT');
    assert.equal(r.json.error.field, field, JSON.stringify(r.json));
  }

  it('NUL characters and invalid UTF-8 in body fields are 400 naming the field, in both components', async () => {
    await expect400(app.url, 'POST', '/api/sources', { owner: 'a\u0000b', name: 'n' }, 'owner');
    await expect400(
      app.url,
      'POST',
      '/api/sources',
      { owner: 'o', name: 'n', default_branch: 'ma\u0000in' },
      'default_branch',
    );
    await expect400(app.url, 'PATCH', `/api/sources/${src}`, { meta: { note: 'x\u0000' } }, 'meta.note');
    await expect400(app.url, 'PATCH', `/api/sources/${src}`, { config: { 'k\u0000': 1 } }, 'config.k\u0000');
    // Invalid UTF-8 bytes inside a JSON string.
    const badUtf8 = Buffer.concat([
      Buffer.from('{"owner":"o","name":"n'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    await expect400(app.url, 'POST', '/api/sources', badUtf8, 'name');
    await expect400(ingestion, 'POST', '/api/syncs', { source_id: src, triggered_by: 'me\u0000' }, 'triggered_by');
    await expect400(
      ingestion,
      'POST',
      '/api/syncs',
      { source_id: src, config_overrides: { a: '\u0000' } },
      'config_overrides.a',
    );
    const count = await app.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM sources`);
    assert.equal(count.rows[0]!.n, 1, 'nothing was created');
  });

  it('refs and branches git would misread (options, check-ref-format violations) are 400 naming the field', async () => {
    const before = await app.db.pool.query(`SELECT default_branch FROM sources WHERE id = $1`, [src]);
    const bad = [
      '--upload-pack=touch /tmp/ckg-pwned',
      '-b',
      'a..b',
      'a b',
      'x.lock',
      'a:b',
      'HEAD@{1}',
      '.hidden',
      'a/',
    ];
    for (const ref of bad) {
      await expect400(
        app.url,
        'POST',
        '/api/sources',
        { owner: 'o', name: 'n', default_branch: ref },
        'default_branch',
      );
      await expect400(app.url, 'PATCH', `/api/sources/${src}`, { default_branch: ref }, 'default_branch');
      await expect400(ingestion, 'POST', '/api/syncs', { source_id: src, ref }, 'ref');
    }
    const r = await raw(app.url, 'PATCH', `/api/sources/${src}`, Buffer.from('{"default_branch":"--upload-pack=x"}'));
    assert.match(r.json.error.message, /must be a valid git ref: it must not start with '-'/);
    const after = await app.db.pool.query(`SELECT default_branch FROM sources WHERE id = $1`, [src]);
    assert.deepEqual(after.rows, before.rows, 'nothing was stored');
    assert.equal((await app.db.pool.query(`SELECT 1 FROM sources WHERE owner = 'o'`)).rowCount, 0);
  });

  it('URLs with credentials or a command transport are 400 naming url; stored credentials never come back', async () => {
    const token = 'ghp_0123456789abcdefSECRET';
    for (const url of [
      `https://x-access-token:${token}@github.com/acme/r.git`,
      `https://${token}@github.com/a/r.git`,
    ]) {
      const r = await raw(app.url, 'POST', '/api/sources', Buffer.from(JSON.stringify({ owner: 'o', name: 'n', url })));
      assert.equal(r.status, 400);
      assert.equal(r.json.error.field, 'url');
      assert.ok(!JSON.stringify(r.json).includes(token), 'the token is not echoed');
    }
    await expect400(app.url, 'PATCH', `/api/sources/${src}`, { url: 'ext::sh -c touch% /tmp/ckg-pwned' }, 'url');
    // A row stored before credentials were refused: reads return the URL without them.
    const stored = await insertSource(app.db.pool);
    await app.db.pool.query(`UPDATE sources SET url = $2 WHERE id = $1`, [
      stored,
      `https://x-access-token:${token}@github.com/acme/old.git`,
    ]);
    const one = await app.send<{ url: string }>('GET', `/api/sources/${stored}`);
    assert.equal(one.body.url, 'https://github.com/acme/old.git');
    const list = await app.send('GET', '/api/sources?limit=200');
    assert.ok(!JSON.stringify(list.body).includes(token));
    await app.db.pool.query(`DELETE FROM sources WHERE id = $1`, [stored]);
  });

  it('null means what the OpenAPI document says: url is a string (400), access_token null removes the token', async () => {
    const before = await app.db.pool.query<{ url: string }>(`SELECT url FROM sources WHERE id = $1`, [src]);
    await expect400(app.url, 'PATCH', `/api/sources/${src}`, { url: null }, 'url');
    await expect400(app.url, 'POST', '/api/sources', { owner: 'o', name: 'n', url: null }, 'url');
    const afterRow = await app.db.pool.query<{ url: string }>(`SELECT url FROM sources WHERE id = $1`, [src]);
    assert.equal(afterRow.rows[0]!.url, before.rows[0]!.url, 'the URL is unchanged');
    const cleared = await app.send<{ has_access_token: boolean }>('PATCH', `/api/sources/${src}`, {
      access_token: null,
    });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.has_access_token, false);
    // The ingestion component follows the same rule: its fields are not nullable.
    await expect400(ingestion, 'POST', '/api/syncs', { source_id: src, ref: null }, 'ref');
    await expect400(
      ingestion,
      'POST',
      '/api/schedules',
      { source_id: src, interval_minutes: 60, enabled: null },
      'enabled',
    );
  });

  it('both components trim text the same way: a blank field is 400 "must not be empty"', async () => {
    for (const [base, path, body, field] of [
      [app.url, '/api/sources', { owner: '   ', name: 'n' }, 'owner'],
      [ingestion, '/api/syncs', { source_id: src, triggered_by: '  \t ' }, 'triggered_by'],
    ] as const) {
      const r = await raw(base, 'POST', path, Buffer.from(JSON.stringify(body)));
      assert.equal(r.status, 400);
      assert.equal(r.json.error.field, field);
      assert.match(r.json.error.message, /must not be empty/);
    }
  });

  it('NUL in a node id and non-UUID ids in well-formed cursors are 400, not 500', async () => {
    const node = await raw(app.url, 'GET', `/api/graph/nodes/src_${src}:a%00b`);
    assert.equal(node.status, 400);
    assert.equal(node.json.error.field, 'node_id');
    const forged = encodeCursor({ t: '2025-01-01T00:00:00.000Z', id: '------------------------------------' });
    for (const path of ['/api/syncs', '/api/sources', '/api/schedules', `/api/syncs/${src}/issues`]) {
      const r = await raw(app.url, 'GET', `${path}?cursor=${forged}`);
      assert.equal(r.status, 400, path);
      assert.equal(r.json.error.field, 'cursor', path);
    }
    const badTime = encodeCursor({ t: '2025-02-30T00:00:00Z', id: src });
    assert.equal((await raw(app.url, 'GET', `/api/syncs?cursor=${badTime}`)).status, 400);
    const nulQuery = await raw(app.url, 'GET', `/api/graph/search?q=a%00b`);
    assert.equal(nulQuery.status, 400);
    assert.equal(nulQuery.json.error.field, 'q');
  });

  it('a 60 kB URL is 414 and 100 kB of headers 431, both in the JSON error shape', async () => {
    const long = await raw(app.url, 'GET', `/api/graph/search?q=${'a'.repeat(60_000)}`);
    assert.equal(long.status, 414);
    assert.equal(long.json.error.code, 'INVALID_ARGUMENT');
    assert.match(long.json.error.message, /request target/);
    const big = await raw(app.url, 'GET', '/api/sources', undefined, { 'x-big': 'b'.repeat(100_000) });
    assert.equal(big.status, 431);
    assert.equal(big.json.error.field, 'headers');
  });
});
