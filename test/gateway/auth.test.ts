import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, createPublicKey } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { waitFor } from '../support/wait.ts';
import { newKey, startTestIdp, type TestIdp } from '../support/idp-keys.ts';
import { startUpstream, type TestUpstream } from '../support/upstream.ts';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('gateway authentication', () => {
  let db: TestDatabase;
  let idp: TestIdp;
  let graph: TestUpstream;
  let gw: TestGateway;
  const clock = { t: Date.now() };

  before(async () => {
    db = await createTestDatabase();
    idp = await startTestIdp('test');
    graph = await startUpstream('graph');
    gw = await startGateway(
      {
        DATABASE_URL: db.url,
        KEYCLOAK_URL: idp.url,
        KEYCLOAK_REALM: 'test',
        GRAPH_SERVICE_URL: graph.url,
        INGESTION_SERVICE_URL: graph.url,
        JWKS_UNKNOWN_KID_REFRESH_SECONDS: '30',
      },
      { now: () => clock.t },
    );
    await waitFor('initial key set', () => gw.keys?.refreshCount === 1, 5000, 10);
  });
  after(async () => {
    await gw.close();
    await graph.close();
    await idp.close();
    await db.drop();
  });

  async function call(token: string | undefined, path = '/api/graph/stats') {
    const res = await fetch(
      gw.url + path,
      token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
    );
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, { code?: string }>) : {}, res };
  }
  async function rejected(token: string | undefined, code: 'UNAUTHORIZED' | 'token_expired', path?: string) {
    const before = graph.received.length;
    const r = await call(token, path);
    assert.equal(r.status, 401);
    assert.equal(r.body.error?.code, code);
    assert.match(r.res.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal(graph.received.length, before, 'nothing reached the upstream');
  }

  it('a valid token passes and the Authorization header reaches the upstream unchanged', async () => {
    const token = await idp.sign();
    const r = await call(token);
    assert.equal(r.status, 200);
    assert.equal(graph.received.at(-1)?.headers.authorization, `Bearer ${token}`);
  });

  it('no token: 401 UNAUTHORIZED', () => rejected(undefined, 'UNAUTHORIZED'));

  it('alg none: 401 UNAUTHORIZED', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = `${b64({ alg: 'none', kid: 'key-1' })}.${b64({ sub: 'x', iss: idp.issuer, exp: now + 60 })}.`;
    await rejected(token, 'UNAUTHORIZED');
  });

  it('HS256 signed with the public key as the secret: 401 UNAUTHORIZED', async () => {
    const now = Math.floor(Date.now() / 1000);
    const pem = createPublicKey({ key: idp.keys[0]!.publicJwk as never, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    const input = `${b64({ alg: 'HS256', kid: 'key-1', typ: 'JWT' })}.${b64({ sub: 'x', iss: idp.issuer, exp: now + 60 })}`;
    const sig = createHmac('sha256', pem).update(input).digest('base64url');
    await rejected(`${input}.${sig}`, 'UNAUTHORIZED');
  });

  it('wrong issuer: 401 UNAUTHORIZED', async () => {
    await rejected(await idp.sign({ iss: 'http://evil.example/realms/test' }), 'UNAUTHORIZED');
  });

  it('expired: 401 token_expired', async () => {
    await rejected(await idp.sign({}, { expiresIn: -60 }), 'token_expired');
  });

  it('expired and signed by another key: UNAUTHORIZED, not token_expired (the signature is checked first)', async () => {
    const other = await newKey('key-1');
    await rejected(await idp.sign({}, { key: other, expiresIn: -60 }), 'UNAUTHORIZED');
  });

  it('no exp claim: 401 UNAUTHORIZED', async () => {
    const { SignJWT } = await import('jose');
    const token = await new SignJWT({ sub: 'x', iss: idp.issuer })
      .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
      .sign(idp.keys[0]!.privateKey);
    await rejected(token, 'UNAUTHORIZED');
  });

  it('missing kid: 401 UNAUTHORIZED', async () => {
    await rejected(await idp.sign({}, { kid: null }), 'UNAUTHORIZED');
  });

  it('tampered payload: 401 UNAUTHORIZED', async () => {
    const [h, , s] = (await idp.sign({ sub: 'user-1' })).split('.');
    const now = Math.floor(Date.now() / 1000);
    await rejected(`${h}.${b64({ sub: 'admin', iss: idp.issuer, exp: now + 300 })}.${s}`, 'UNAUTHORIZED');
  });

  it('signed by another key under a known kid: 401 UNAUTHORIZED', async () => {
    await rejected(await idp.sign({}, { key: await newKey('key-1') }), 'UNAUTHORIZED');
  });

  it('malformed tokens and headers: 401 UNAUTHORIZED', async () => {
    await rejected('not-a-jwt', 'UNAUTHORIZED');
    await rejected('a.b.c', 'UNAUTHORIZED');
    const r = await fetch(gw.url + '/api/graph/stats', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    assert.equal(r.status, 401);
    assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'UNAUTHORIZED');
  });

  it('a token in the query on a route other than /api/events: 401 UNAUTHORIZED', async () => {
    const token = await idp.sign();
    await rejected(undefined, 'UNAUTHORIZED', `/api/graph/stats?token=${token}`);
    const both = await fetch(`${gw.url}/api/graph/stats?token=${token}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(both.status, 401, 'refused even with a header, so the token never travels upstream in a URL');
  });

  it('a token in the query is accepted on /api/events', async () => {
    const token = await idp.sign();
    const ac = new AbortController();
    const r = await fetch(`${gw.url}/api/events?token=${token}`, { signal: ac.signal });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
    ac.abort();
  });

  it('auth_failed is logged as a warning with the code, and no token appears in any log line', async () => {
    const token = await idp.sign({}, { expiresIn: -5, nowMs: clock.t });
    await call(token);
    const line = gw.events('auth_failed').at(-1);
    assert.equal(line?.level, 'warning');
    assert.equal(line?.code, 'token_expired');
    const all = JSON.stringify(gw.logs);
    assert.ok(!all.includes(token.split('.')[2]!), 'no signature in the logs');
  });

  it('/health needs no token; unknown paths are 404 before any auth', async () => {
    assert.equal((await call(undefined, '/health')).status, 200);
    assert.deepEqual((await call(undefined, '/health')).body, { status: 'ok' });
    const r = await call(undefined, '/nowhere');
    assert.equal(r.status, 404);
    assert.equal(r.body.error?.code, 'NOT_FOUND');
  });

  it('a token already verified (remembered) is still refused once it expires', async () => {
    const token = await idp.sign({}, { expiresIn: 5, nowMs: clock.t });
    assert.equal((await call(token)).status, 200);
    assert.equal((await call(token)).status, 200);
    clock.t += 10_000;
    await rejected(token, 'token_expired');
  });

  it('an unknown kid causes at most one refresh per interval', async () => {
    const before = idp.fetches;
    const stranger = await newKey('stranger');
    const token = await idp.sign({}, { key: stranger });
    await rejected(token, 'UNAUTHORIZED');
    assert.equal(idp.fetches, before + 1, 'one refresh for the unknown kid');
    await rejected(token, 'UNAUTHORIZED');
    await rejected(await idp.sign({}, { key: await newKey('stranger-2') }), 'UNAUTHORIZED');
    assert.equal(idp.fetches, before + 1, 'no further refresh within the interval');
  });

  it('a rotated key is accepted after the refresh its unknown kid triggers', async () => {
    clock.t += 31_000; // past the unknown-kid interval
    const rotated = await newKey('key-2');
    idp.keys = [rotated, ...idp.keys];
    const before = idp.fetches;
    const r = await call(await idp.sign({}, { key: rotated }));
    assert.equal(r.status, 200);
    assert.equal(idp.fetches, before + 1);
    assert.ok(gw.events('jwks_refreshed').some((l) => l.reason === 'unknown_kid'));
  });

  it('the key set is cached for 5 minutes, then refreshed in the background while the stale set serves', async () => {
    // The injected clock also judges exp: these tokens live an hour.
    const token = await idp.sign({}, { expiresIn: 3600 });
    assert.equal((await call(token)).status, 200);
    const base = idp.fetches;
    clock.t += 299_000;
    for (let i = 0; i < 3; i++) assert.equal((await call(token)).status, 200);
    assert.equal(idp.fetches, base, 'no fetch inside the 5 minutes');

    // A key removed by the provider still verifies until the refresh lands: the stale set serves.
    const removed = idp.keys.find((k) => k.kid === 'key-1')!;
    const oldToken = await idp.sign({}, { key: removed, expiresIn: 3600 });
    idp.keys = idp.keys.filter((k) => k !== removed);
    idp.delayMs = 500;
    clock.t += 2_000;
    const t0 = performance.now();
    assert.equal((await call(oldToken)).status, 200, 'served from the stale set');
    assert.ok(performance.now() - t0 < 400, 'the request did not wait for the slow refresh');
    await waitFor('background refresh started', () => idp.fetches === base + 1, 3000, 10);
    assert.equal((await call(oldToken)).status, 200, 'still the stale set while the refresh runs');
    await waitFor(
      'jwks_refreshed (expired)',
      () => gw.events('jwks_refreshed').some((l) => l.reason === 'expired' && l.keys === 1),
      3000,
      10,
    );
    idp.delayMs = 0;
    assert.equal(idp.fetches, base + 1, 'exactly one background refresh');
    // The refreshed set no longer holds key-1: refused (after the one unknown-kid refresh the interval allows).
    await rejected(oldToken, 'UNAUTHORIZED');
    await rejected(oldToken, 'UNAUTHORIZED');
    assert.equal(idp.fetches, base + 2);
  });
});

describe('gateway with AUTH_DISABLED', () => {
  let db: TestDatabase;
  let graph: TestUpstream;
  let gw: TestGateway;
  before(async () => {
    db = await createTestDatabase();
    graph = await startUpstream('graph');
    gw = await startGateway({ DATABASE_URL: db.url, GRAPH_SERVICE_URL: graph.url, AUTH_DISABLED: 'true' });
  });
  after(async () => {
    await gw.close();
    await graph.close();
    await db.drop();
  });

  it('lets requests through without a token and logs a loud warning at start', async () => {
    const r = await fetch(gw.url + '/api/graph/stats');
    assert.equal(r.status, 200);
    const warn = gw.events('auth_disabled')[0];
    assert.equal(warn?.level, 'warning');
    assert.match(String(warn?.message), /NEVER IN PRODUCTION/);
    assert.equal(gw.events('gateway_started')[0]?.auth_disabled, true);
  });
});
