// The gateway serves the web explorer (web/dist, built by scripts/build-web.ts): its page at `/` with the OIDC
// settings written in, its hashed bundle under /explorer/, no token needed, the routing table's 404/405 rules kept.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExplorer, EXPLORER_DIST } from '../../gateway/explorer.ts';
import { ServiceError } from '../../lib/errors.ts';
import { ensureExplorerBuilt } from '../support/browser.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';

const ISSUER = 'https://login.example.test/realms/service';

describe('the web explorer served by the gateway', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let js: string;
  let css: string;

  before(async () => {
    await ensureExplorerBuilt();
    const files = readdirSync(EXPLORER_DIST);
    js = files.find((f) => f.endsWith('.js'))!;
    css = files.find((f) => f.endsWith('.css'))!;
    db = await createTestDatabase();
    gw = await startGateway({
      DATABASE_URL: db.url,
      KEYCLOAK_URL: 'http://127.0.0.1:9',
      KEYCLOAK_ISSUER: ISSUER,
      GRAPH_SERVICE_URL: 'http://127.0.0.1:9',
      INGESTION_SERVICE_URL: 'http://127.0.0.1:9',
    });
  });
  after(async () => {
    await gw.close();
    await db.drop();
  });

  it('GET / is the page, without a token, with the browser-facing issuer and the public client written in', async () => {
    const res = await fetch(gw.url + '/');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const html = await res.text();
    const m = /<script id="ckg-config" type="application\/json">\s*(.*?)\s*<\/script>/s.exec(html);
    assert.ok(m, 'config element');
    assert.deepEqual(JSON.parse(m[1]!), { authority: ISSUER, clientId: 'service-frontend' });
    assert.ok(html.includes(`src="/explorer/${js}"`) && html.includes(`href="/explorer/${css}"`), 'hashed bundle');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline or foreign scripts');
    assert.match(csp, /connect-src 'self' https:\/\/login\.example\.test(;|$)/, 'API and the identity provider only');
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  });

  it('HEAD / answers like GET without a body', async () => {
    const res = await fetch(gw.url + '/', { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '');
  });

  it('the hashed bundle files are served as long-lived, immutable assets', async () => {
    for (const [name, type] of [
      [js, 'text/javascript; charset=utf-8'],
      [css, 'text/css; charset=utf-8'],
    ] as const) {
      const res = await fetch(`${gw.url}/explorer/${name}`);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get('content-type'), type);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.ok((await res.arrayBuffer()).byteLength > 1000);
    }
  });

  it('anything else under /explorer/ is 404 in the one error shape; no path reaches the disk', async () => {
    for (const path of [
      '/explorer/index.html',
      '/explorer/nope.js',
      '/explorer/..%2Fpackage.json',
      `/explorer/x/${js}`,
    ]) {
      const res = await fetch(gw.url + path);
      assert.equal(res.status, 404, path);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
    }
  });

  it('POST / is 405 with Allow: GET, HEAD', async () => {
    const res = await fetch(gw.url + '/', { method: 'POST' });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'GET, HEAD');
  });

  it('/docs, /health and the token rule of /api/* are unchanged', async () => {
    assert.equal((await fetch(gw.url + '/docs')).status, 200);
    assert.equal((await fetch(gw.url + '/health')).status, 200);
    const api = await fetch(gw.url + '/api/sources');
    assert.equal(api.status, 401);
  });

  it('a folder without a build answers 503 naming the build command', () => {
    const empty = mkdtempSync(join(tmpdir(), 'ckg-explorer-'));
    try {
      const explorer = createExplorer({ authority: ISSUER, clientId: 'service-frontend', dist: empty });
      assert.equal(explorer.asset('/docs'), undefined, 'not an explorer path');
      assert.throws(
        () => explorer.asset('/'),
        (err: unknown) => err instanceof ServiceError && err.status === 503 && /build-web/.test(err.message),
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
