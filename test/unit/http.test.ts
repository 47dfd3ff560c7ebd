import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { createHttpServer, errorMiddleware } from '../../lib/http.ts';
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

describe("the components' request deadline (createHttpServer)", () => {
  it('a body that does not arrive in time is 408 in the one error shape and the connection closes', async () => {
    const app = new Koa();
    app.silent = true; // the handler's read fails with "aborted" once Node has answered 408
    app.use(async (ctx) => {
      for await (const _ of ctx.req) void _; // waits for the whole body, as a body parser does
      ctx.body = { ok: true };
    });
    const handle = app.callback();
    const server = createHttpServer((req, res) => void handle(req, res), { requestTimeoutMs: 1000 });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const started = Date.now();
    const text = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let got = '';
      socket.setEncoding('utf8').on('data', (d: string) => (got += d));
      socket.on('close', () => resolve(got));
      socket.write('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a":');
    });
    await new Promise<void>((r) => server.close(() => r()));
    assert.match(text, /^HTTP\/1\.1 408 /);
    const body = JSON.parse(text.split('\r\n\r\n')[1]!) as { error: { field: string } };
    assert.equal(body.error.field, 'request');
    assert.ok(Date.now() - started < 4000, `${Date.now() - started} ms`);
  });
});
