import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { errorMiddleware } from '../../lib/http.ts';
import { InvalidArgumentError } from '../../lib/errors.ts';
import { createLogger } from '../../lib/log.ts';

describe('error middleware over real HTTP', () => {
  let server: Server;
  let base = '';
  const lines: string[] = [];
  before(async () => {
    const app = new Koa();
    const router = new Router();
    router.get('/things', (ctx) => {
      ctx.body = { ok: true };
    });
    router.get('/bad', () => {
      throw new InvalidArgumentError('limit', 'must be an integer');
    });
    router.get('/boom', () => {
      throw new Error('connection string postgres://secret@db leaked?');
    });
    app.use(errorMiddleware(createLogger('t', { write: (l) => lines.push(l) })));
    app.use(router.routes());
    app.use(router.allowedMethods());
    server = app.listen(0);
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('405 from the router gets the JSON error body and keeps Allow', async () => {
    const res = await fetch(`${base}/things`, { method: 'PUT' });
    assert.equal(res.status, 405);
    assert.match(res.headers.get('allow') ?? '', /GET/);
    assert.deepEqual(await res.json(), {
      error: { code: 'METHOD_NOT_ALLOWED', message: 'PUT is not allowed on /things' },
    });
  });

  it('an unknown route is 404 NOT_FOUND', async () => {
    const res = await fetch(`${base}/nothing`);
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
  });

  it('a bad parameter is 400 naming the field, logged at info', async () => {
    const res = await fetch(`${base}/bad`);
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      error: { code: 'INVALID_ARGUMENT', message: 'limit: must be an integer', field: 'limit' },
    });
    assert.ok(lines.some((l) => l.includes('"level":"info"') && l.includes('request_rejected')));
  });

  it('an unexpected error is 500 without its message, logged at error', async () => {
    const res = await fetch(`${base}/boom`);
    assert.equal(res.status, 500);
    const text = await res.text();
    assert.ok(!text.includes('secret'), text);
    assert.deepEqual(JSON.parse(text), { error: { code: 'INTERNAL', message: 'internal error' } });
    assert.ok(lines.some((l) => l.includes('"level":"error"') && l.includes('request_failed')));
  });
});
