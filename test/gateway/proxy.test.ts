import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { waitFor } from '../support/wait.ts';
import { closedPort, startUpstream, type TestUpstream } from '../support/upstream.ts';

interface Reply {
  status: number;
  rawHeaders: string[];
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function send(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string | string[]>; body?: Buffer | Buffer[] } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          rawHeaders: res.rawHeaders,
          headers: res.headers,
          body: Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    const body = options.body;
    if (Array.isArray(body)) for (const b of body) req.write(b);
    else if (body) req.write(body);
    req.end();
  });
}

const errorCode = (r: Reply) => (JSON.parse(r.body.toString()) as { error: { code: string } }).error.code;
const pairs = (raw: string[]) => {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
};

describe('gateway proxy', () => {
  let db: TestDatabase;
  let graph: TestUpstream;
  let ingestion: TestUpstream;
  let gw: TestGateway;

  before(async () => {
    db = await createTestDatabase();
    graph = await startUpstream('graph');
    ingestion = await startUpstream('ingestion');
    gw = await startGateway({
      DATABASE_URL: db.url,
      GRAPH_SERVICE_URL: graph.url,
      INGESTION_SERVICE_URL: ingestion.url,
      AUTH_DISABLED: 'true',
      UPSTREAM_TIMEOUT_SECONDS: '0.5',
      UPSTREAM_RETRY_BASE_MS: '100',
    });
  });
  after(async () => {
    await gw.close();
    await graph.close();
    await ingestion.close();
    await db.drop();
  });

  it('request body and end-to-end headers arrive unchanged (case, order, repeats); hop-by-hop ones do not', async () => {
    const body = randomBytes(1_500_000);
    graph.handle = (_req, res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    const r = await send(gw.url, 'POST', '/api/sources?x=1&y=%2F', {
      headers: {
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(body.length),
        'X-Custom-Header': ['one', 'two'],
        'x-lower': 'Value With  Spaces',
        Authorization: 'Bearer abc.def.ghi',
        Connection: 'keep-alive, X-Drop-Me',
        'X-Drop-Me': 'hop',
        'Keep-Alive': 'timeout=5',
        TE: 'trailers',
        'Proxy-Authorization': 'Basic eA==',
      },
      body,
    });
    assert.equal(r.status, 201);
    const got = graph.received.at(-1)!;
    assert.equal(got.url, '/api/sources?x=1&y=%2F');
    assert.ok(got.body.equals(body), 'body bytes unchanged');
    const h = pairs(got.rawHeaders);
    assert.deepEqual(
      h.filter(([k]) => k === 'X-Custom-Header'),
      [
        ['X-Custom-Header', 'one'],
        ['X-Custom-Header', 'two'],
      ],
    );
    assert.ok(h.some(([k, v]) => k === 'x-lower' && v === 'Value With  Spaces'));
    assert.ok(h.some(([k, v]) => k === 'Content-Type' && v === 'application/octet-stream'));
    assert.ok(h.some(([k, v]) => k === 'Authorization' && v === 'Bearer abc.def.ghi'));
    assert.equal(got.headers['content-length'], String(body.length));
    for (const hop of ['x-drop-me', 'keep-alive', 'te', 'proxy-authorization']) {
      assert.equal(got.headers[hop], undefined, `${hop} dropped`);
    }
    assert.equal(got.headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(got.headers.host, new URL(graph.url).host, 'Host is the upstream');
    assert.equal(got.headers['x-forwarded-host'], new URL(gw.url).host, 'the client-facing host');
    assert.equal(got.headers['x-forwarded-proto'], 'http');
  });

  it("a caller's own X-Forwarded-* are not trusted (TRUST_FORWARDED_HEADERS=false)", async () => {
    await send(gw.url, 'GET', '/api/graph/stats', {
      headers: { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '6.6.6.6' },
    });
    const got = graph.received.at(-1)!;
    assert.equal(got.headers['x-forwarded-host'], new URL(gw.url).host);
    assert.equal(got.headers['x-forwarded-proto'], 'http');
    assert.equal(got.headers['x-forwarded-for'], '127.0.0.1');
  });

  it('behind a proxy of ours (TRUST_FORWARDED_HEADERS=true) they are kept and extended', async () => {
    const trusting = await startGateway({
      DATABASE_URL: db.url,
      GRAPH_SERVICE_URL: graph.url,
      AUTH_DISABLED: 'true',
      TRUST_FORWARDED_HEADERS: 'true',
    });
    try {
      await send(trusting.url, 'GET', '/api/graph/stats', {
        headers: { 'X-Forwarded-Host': 'api.example', 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '10.0.0.9' },
      });
      const got = graph.received.at(-1)!;
      assert.equal(got.headers['x-forwarded-host'], 'api.example');
      assert.equal(got.headers['x-forwarded-proto'], 'https');
      assert.equal(got.headers['x-forwarded-for'], '10.0.0.9, 127.0.0.1');
    } finally {
      await trusting.close();
    }
  });

  it('a chunked request body streams through', async () => {
    const parts = [randomBytes(10_000), randomBytes(20_000), randomBytes(5)];
    await send(gw.url, 'POST', '/api/syncs', {
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: parts,
    });
    const got = ingestion.received.at(-1)!;
    assert.ok(got.body.equals(Buffer.concat(parts)));
  });

  it('response status, body and headers come back unchanged; hop-by-hop response headers are dropped', async () => {
    const body = randomBytes(300_000);
    graph.handle = (_req, res) => {
      res.writeHead(418, 'Short And Stout', [
        'Set-Cookie',
        'a=1; Path=/',
        'Set-Cookie',
        'b=2; Path=/',
        'X-Upstream',
        'yes',
        'Connection',
        'X-Hop',
        'X-Hop',
        'secret-hop',
        'Content-Type',
        'application/x-thing',
      ]);
      res.end(body);
    };
    const r = await send(gw.url, 'GET', '/api/graph/stats');
    assert.equal(r.status, 418);
    assert.ok(r.body.equals(body));
    assert.deepEqual(r.headers['set-cookie'], ['a=1; Path=/', 'b=2; Path=/']);
    assert.equal(r.headers['x-upstream'], 'yes');
    assert.equal(r.headers['content-type'], 'application/x-thing');
    assert.equal(r.headers['x-hop'], undefined);
  });

  it('an upstream 404 or 500 body is forwarded as the upstream wrote it', async () => {
    graph.handle = (_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"mine":true}');
    const r = await send(gw.url, 'GET', '/api/graph/nodes/x');
    assert.equal(r.status, 404);
    assert.equal(r.body.toString(), '{"mine":true}');
    graph.handle = (_req, res) => res.writeHead(500).end('boom');
    const r5 = await send(gw.url, 'GET', '/api/graph/nodes/x');
    assert.equal(r5.status, 500);
    assert.equal(r5.body.toString(), 'boom');
    assert.equal(gw.events('upstream_response').at(-1)?.level, 'error', '5xx logged at error');
    assert.equal(gw.events('upstream_response').at(-2)?.level, 'info', '4xx logged at info');
  });

  it('the response is streamed, not buffered: the first chunk arrives before the upstream finishes', async () => {
    let finish!: () => void;
    graph.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first;');
      finish = () => res.end('last');
    };
    const first = await new Promise<string>((resolve, reject) => {
      const u = new URL(gw.url);
      http
        .get({ host: u.hostname, port: u.port, path: '/api/graph/stream' }, (res) => {
          res.setEncoding('utf8');
          let all = '';
          res.once('data', (c: string) => {
            all += c;
            resolve(all);
            res.on('data', (d: string) => (all += d));
            finish();
          });
        })
        .on('error', reject);
    });
    assert.equal(first, 'first;');
  });

  describe('connection failures', () => {
    let dead: TestGateway;
    let port: number;
    before(async () => {
      port = await closedPort();
      dead = await startGateway({
        DATABASE_URL: db.url,
        GRAPH_SERVICE_URL: `http://127.0.0.1:${port}`,
        INGESTION_SERVICE_URL: `http://127.0.0.1:${port}`,
        AUTH_DISABLED: 'true',
        UPSTREAM_RETRY_BASE_MS: '150',
      });
    });
    after(() => dead.close());
    const attempts = (method: string) =>
      dead.events('upstream_error').filter((l) => l.method === method && l.kind === 'connect');

    it('GET on a refused connection: 3 attempts with exponential backoff, then 503 UPSTREAM_UNAVAILABLE', async () => {
      const t0 = performance.now();
      const r = await send(dead.url, 'GET', '/api/graph/stats');
      const ms = performance.now() - t0;
      assert.equal(r.status, 503);
      assert.equal(errorCode(r), 'UPSTREAM_UNAVAILABLE');
      const tries = attempts('GET');
      assert.deepEqual(
        tries.map((l) => l.attempt),
        [1, 2, 3],
      );
      assert.deepEqual(
        tries.map((l) => l.retrying),
        [true, true, false],
      );
      assert.equal(tries[0]?.level, 'warning');
      assert.ok(ms >= 150 + 300, `backoff 150 then 300 ms (took ${ms.toFixed(0)} ms)`);
      assert.equal(dead.events('request_failed').at(-1)?.level, 'error', '5xx logged at error');
    });

    it('POST and PATCH on a refused connection: one attempt only, 503', async () => {
      for (const [method, path] of [
        ['POST', '/api/syncs'],
        ['PATCH', '/api/sources/1'],
      ] as const) {
        const r = await send(dead.url, method, path, { body: Buffer.from('{"a":1}') });
        assert.equal(r.status, 503);
        assert.deepEqual(
          attempts(method).map((l) => l.attempt),
          [1],
        );
      }
    });

    it('DELETE (idempotent) is retried', async () => {
      await send(dead.url, 'DELETE', '/api/syncs/1');
      assert.equal(attempts('DELETE').length, 3);
    });

    it('a GET whose upstream comes up during the backoff succeeds', async () => {
      const before = attempts('GET').length;
      const late = http.createServer((_req, res) => res.end('late but fine'));
      const pending = send(dead.url, 'GET', '/api/graph/late');
      await waitFor('first failed attempt', () => attempts('GET').length > before, 2000, 10);
      await new Promise<void>((r) => late.listen(port, '127.0.0.1', r));
      try {
        const r = await pending;
        assert.equal(r.status, 200);
        assert.equal(r.body.toString(), 'late but fine');
      } finally {
        late.closeAllConnections();
        await new Promise<void>((r) => late.close(() => r()));
      }
    });
  });

  it('502 UPSTREAM_DISCONNECTED when the upstream drops the connection before answering; a GET is not retried then', async () => {
    let seen = 0;
    graph.handle = (req) => {
      seen++;
      req.socket.destroy();
    };
    const r = await send(gw.url, 'GET', '/api/graph/stats');
    assert.equal(r.status, 502);
    assert.equal(errorCode(r), 'UPSTREAM_DISCONNECTED');
    assert.equal(seen, 1, 'bytes went out: no retry');
  });

  it('a connection cut mid-response ends the client response early and is logged', async () => {
    graph.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 50);
    };
    await assert.rejects(send(gw.url, 'GET', '/api/graph/stats'));
    await waitFor(
      'upstream_error body_interrupted',
      () => gw.events('upstream_error').some((l) => l.kind === 'body_interrupted'),
      2000,
      10,
    );
  });

  it('504 UPSTREAM_TIMEOUT when the upstream does not answer within UPSTREAM_TIMEOUT_SECONDS', async () => {
    graph.handle = () => undefined; // never answers
    const t0 = performance.now();
    const r = await send(gw.url, 'GET', '/api/graph/stats');
    const ms = performance.now() - t0;
    assert.equal(r.status, 504);
    assert.equal(errorCode(r), 'UPSTREAM_TIMEOUT');
    assert.ok(ms >= 450 && ms < 2000, `after ~500 ms (took ${ms.toFixed(0)} ms)`);
  });

  it('pool: at most 100 upstream connections, 20 kept idle, idle ones closed after 2 s', async () => {
    const open = new Set<Socket>();
    let peak = 0;
    // Answers are held until 100 requests wait at once (or 3 s pass), so the pool is driven to its limit.
    const held: http.ServerResponse[] = [];
    const release = () => held.splice(0).forEach((r) => r.end('ok'));
    const server = http.createServer((req, res) => {
      if (req.url === '/openapi.json') return res.writeHead(404).end(); // the gateway's own document fetch
      held.push(res);
      if (held.length >= 100) setTimeout(release, 50);
      else setTimeout(release, 3000);
    });
    server.keepAliveTimeout = 60_000;
    server.on('request', (req: http.IncomingMessage) => {
      const s = req.socket;
      if (req.url === '/openapi.json' || open.has(s)) return;
      open.add(s);
      peak = Math.max(peak, open.size);
      s.on('close', () => open.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const pooled = await startGateway({
      DATABASE_URL: db.url,
      GRAPH_SERVICE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      AUTH_DISABLED: 'true',
    });
    try {
      const replies = await Promise.all(Array.from({ length: 160 }, () => send(pooled.url, 'GET', '/api/graph/stats')));
      assert.ok(replies.every((r) => r.status === 200));
      assert.equal(peak, 100, 'the 160 concurrent requests shared at most 100 connections');
      await waitFor('idle connections trimmed', () => open.size <= 20, 2000, 10);
      assert.ok(open.size > 0 && open.size <= 20, `kept alive: ${open.size}`);
      await waitFor('idle connections expire after 2 s', () => open.size === 0, 4000, 10);
    } finally {
      await pooled.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
