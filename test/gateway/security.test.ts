/**
 * Issue 27 at the gateway: half-sent bodies cannot take the upstream connections (408 within the body deadline, the
 * upstream never sees them), and the identity provider's 404s and 5xx come back in the one error shape.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startUpstream, type TestUpstream } from '../support/upstream.ts';

/** Sends the head and part of a body, then waits; resolves with what the gateway answered and when. */
function halfSent(base: string, path: string): { done: Promise<{ head: string; body: string; ms: number }> } {
  const u = new URL(base);
  const socket = net.connect(Number(u.port), u.hostname);
  const started = Date.now();
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (text += d));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"owner":`,
  );
  const done = new Promise<{ head: string; body: string; ms: number }>((resolve) => {
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ head, body, ms: Date.now() - started });
    });
  });
  return { done };
}

describe('gateway: half-sent bodies and the identity provider', () => {
  let db: TestDatabase;
  let graph: TestUpstream;
  let ingestion: TestUpstream;
  let idp: TestUpstream;
  let gw: TestGateway;

  before(async () => {
    db = await createTestDatabase();
    graph = await startUpstream('graph');
    ingestion = await startUpstream('ingestion');
    idp = await startUpstream('idp');
    gw = await startGateway({
      DATABASE_URL: db.url,
      GRAPH_SERVICE_URL: graph.url,
      INGESTION_SERVICE_URL: ingestion.url,
      KEYCLOAK_URL: idp.url,
      AUTH_DISABLED: 'true',
      UPSTREAM_MAX_CONNECTIONS: '4',
      BODY_TIMEOUT_SECONDS: '1',
    });
  });
  after(async () => {
    await gw.close();
    for (const u of [graph, ingestion, idp]) await u.close();
    await db.drop();
  });

  it('20 half-sent bodies (5 times the upstream connections) end with 408; reads pass meanwhile', async () => {
    const open = Array.from({ length: 20 }, (_, i) => halfSent(gw.url, i % 2 ? '/api/sources' : '/api/syncs'));
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${gw.url}/api/graph/stats`, { signal: AbortSignal.timeout(2000) });
      assert.equal(r.status, 200);
      await r.arrayBuffer();
    }
    for (const { done } of open) {
      const r = await done;
      assert.match(r.head, /^HTTP\/1\.1 408 /);
      assert.match(r.head, /connection: close/i);
      const body = JSON.parse(r.body) as { error: { code: string; field: string; message: string } };
      assert.equal(body.error.code, 'INVALID_ARGUMENT');
      assert.equal(body.error.field, 'body');
      assert.match(body.error.message, /not received within 1 s \(9 of 1000 bytes arrived\)/);
      assert.ok(r.ms < 5000, `answered after ${r.ms} ms`);
    }
    const posts = [...graph.received, ...ingestion.received].filter((r) => r.method === 'POST');
    assert.equal(posts.length, 0, 'no half-sent request reached a component');
  });

  it('a whole body is forwarded once it is in, with its length', async () => {
    const r = await fetch(`${gw.url}/api/sources`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'o', name: 'n' }),
    });
    assert.equal(r.status, 200);
    const got = graph.received.at(-1)!;
    assert.equal(got.body.toString(), '{"owner":"o","name":"n"}');
    assert.equal(got.headers['content-length'], String(got.body.length));
  });

  it("the provider's 404 and 5xx come back in the one error shape; its OAuth errors unchanged", async () => {
    const token = `${gw.url}/auth/realms/service/protocol/openid-connect/token`;
    const cases: Array<[number, string, number, string]> = [
      [500, '<html>boom</html>', 502, 'UPSTREAM_DISCONNECTED'],
      [503, 'busy', 503, 'UPSTREAM_UNAVAILABLE'],
      [404, '<html>Page not found</html>', 404, 'NOT_FOUND'],
    ];
    for (const [status, text, want, code] of cases) {
      idp.handle = (_req, res) => res.writeHead(status, { 'content-type': 'text/html' }).end(text);
      const r = await fetch(token, { method: 'POST', body: 'grant_type=x' });
      assert.equal(r.status, want);
      assert.equal(((await r.json()) as { error: { code: string } }).error.code, code);
    }
    const oauth = { error: 'invalid_grant', error_description: 'bad code' };
    idp.handle = (_req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(oauth));
    const r = await fetch(token, { method: 'POST', body: 'grant_type=authorization_code' });
    assert.equal(r.status, 400);
    assert.deepEqual(await r.json(), oauth);
  });
});
