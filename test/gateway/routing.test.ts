import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { upstreamPath } from '../../gateway/proxy/forward.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startUpstream, type TestUpstream } from '../support/upstream.ts';

type Expect = 'graph' | 'ingestion' | 'idp' | 404 | 405 | 400;

// The spec's routing table (part 4), rule by rule, plus what must not route.
const TABLE: [string, string, Expect][] = [
  ['GET', '/api/graph?sync_ids=a,b', 'graph'],
  ['GET', '/api/graph/stats', 'graph'],
  ['GET', '/api/graph/impact?node_id=src_1:a.ts&depth=2', 'graph'],
  ['GET', '/api/graph/diff?source_id=s', 'graph'],
  ['GET', '/api/graph/search?q=parser&limit=5', 'graph'],
  ['GET', '/api/graph/nodes/src_1:pkg/a/summary?force=true', 'graph'],
  ['GET', '/api/graph/nodes/src_1:pkg%2Fa.ts/file', 'graph'],
  ['POST', '/api/graph', 405],
  ['DELETE', '/api/graph/nodes/x', 405],
  ['GET', '/api/sources', 'graph'],
  ['POST', '/api/sources', 'graph'],
  ['GET', '/api/sources/7d1e', 'graph'],
  ['PATCH', '/api/sources/7d1e', 'graph'],
  ['DELETE', '/api/sources/7d1e', 'graph'],
  ['PUT', '/api/sources/7d1e', 405],
  ['GET', '/api/syncs?source_id=s&status=running', 'graph'],
  ['GET', '/api/syncs/abc', 'graph'],
  ['GET', '/api/syncs/abc/issues?level=error&phase=parsing', 'graph'],
  ['POST', '/api/syncs', 'ingestion'],
  ['POST', '/api/syncs/abc/cancel', 'ingestion'],
  ['POST', '/api/syncs/abc/retry', 'ingestion'],
  ['POST', '/api/syncs/abc/clean', 'ingestion'],
  ['DELETE', '/api/syncs/abc/clean', 'ingestion'],
  ['DELETE', '/api/syncs/abc', 'ingestion'],
  ['PATCH', '/api/syncs/abc', 405],
  ['PUT', '/api/syncs', 405],
  ['GET', '/api/schedules?source_id=s', 'graph'],
  ['POST', '/api/schedules', 'ingestion'],
  ['PATCH', '/api/schedules/12', 'ingestion'],
  ['DELETE', '/api/schedules/12', 'ingestion'],
  ['GET', '/api/schedules/12', 405],
  ['PUT', '/api/schedules', 405],
  ['PATCH', '/api/schedules/12/extra', 404],
  // /ingest/*: the operators' reads only; the source teardown is internal (docs/security.md).
  ['GET', '/ingest/workflows/abc', 'ingestion'],
  ['GET', '/ingest/schedules/12?x=1', 'ingestion'],
  ['DELETE', '/ingest/workflows/abc', 405],
  ['DELETE', '/ingest/sources/abc', 404],
  ['GET', '/ingest/sources/abc', 404],
  ['PUT', '/ingest/anything?x=1', 404],
  // /auth/*: an OIDC client's endpoints of the configured realm (`service`), with their methods.
  ['GET', '/auth/realms/service/.well-known/openid-configuration', 'idp'],
  ['POST', '/auth/realms/service/protocol/openid-connect/token', 'idp'],
  ['GET', '/auth/realms/service/protocol/openid-connect/auth?client_id=x', 'idp'],
  ['POST', '/auth/realms/service/login-actions/abc/login', 'idp'],
  ['GET', '/auth/resources/theme/login.css', 'idp'],
  ['GET', '/auth/realms/service/protocol/openid-connect/token', 405],
  ['PUT', '/auth/realms/service/protocol/openid-connect/token', 405],
  ['TRACE', '/auth/realms/service/.well-known/openid-configuration', 405],
  ['PROPFIND', '/auth/realms/service/.well-known/openid-configuration', 405],
  ['GET', '/auth/admin/realms/service/users', 404],
  ['POST', '/auth/realms/master/protocol/openid-connect/token', 404],
  ['GET', '/auth/realms/service/account', 404],
  ['GET', '/auth/realms/service/login-actions/a%2F..%2F..%2F..%2Fadmin', 404],
  ['POST', '/api/events', 405],
  ['GET', '/ws', 404],
  ['GET', '/mcp', 405],
  ['DELETE', '/mcp', 405],
  ['POST', '/mcp/extra', 404],
  ['GET', '/ws/events', 404],
  ['GET', '/api', 404],
  ['GET', '/api/graphx', 404],
  ['GET', '/api/sourcesx', 404],
  ['GET', '/ingest', 404],
  ['POST', '/', 405],
  ['DELETE', '/explorer/main.js', 405],
  ['GET', '/explorer', 404],
  ['GET', '/index.html', 404],
  ['GET', '/favicon.ico', 404],
  ['POST', '/health', 405],
  ['GET', '/api/graph/../sources', 400],
  ['GET', '/api/graph/%2e%2e/sources', 400],
];

function request(
  base: string,
  method: string,
  path: string,
): Promise<{ status: number; body: string; allow?: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    // Options, not a URL string: a URL would be normalised (dot segments removed) before it is sent.
    const req = http.request({ host: u.hostname, port: u.port, path, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, allow: res.headers.allow }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('gateway routing table', () => {
  let db: TestDatabase;
  const up: Record<'graph' | 'ingestion' | 'idp', TestUpstream> = {} as never;
  let gw: TestGateway;

  before(async () => {
    db = await createTestDatabase();
    up.graph = await startUpstream('graph');
    up.ingestion = await startUpstream('ingestion');
    up.idp = await startUpstream('idp');
    gw = await startGateway({
      DATABASE_URL: db.url,
      GRAPH_SERVICE_URL: up.graph.url,
      INGESTION_SERVICE_URL: up.ingestion.url,
      KEYCLOAK_URL: up.idp.url + '/kc/',
      AUTH_DISABLED: 'true',
    });
  });
  after(async () => {
    await gw.close();
    for (const u of Object.values(up)) await u.close();
    await db.drop();
  });

  for (const [method, path, expected] of TABLE) {
    it(`${method} ${path} → ${expected}`, async () => {
      // The gateway's own fetches of /openapi.json are not requests of this test.
      const seen = (u: TestUpstream) => u.received.filter((r) => r.url !== '/openapi.json');
      const counts = Object.fromEntries(Object.entries(up).map(([k, u]) => [k, seen(u).length]));
      const r = await request(gw.url, method, path);
      if (typeof expected === 'number') {
        assert.equal(r.status, expected, r.body);
        const code = { 400: 'INVALID_ARGUMENT', 404: 'NOT_FOUND', 405: 'METHOD_NOT_ALLOWED' }[expected];
        assert.equal((JSON.parse(r.body) as { error: { code: string } }).error.code, code);
        if (expected === 405) assert.ok(r.allow && !r.allow.split(', ').includes(method), `Allow: ${r.allow}`);
        for (const [k, u] of Object.entries(up)) assert.equal(seen(u).length, counts[k], `${k} got nothing`);
        return;
      }
      assert.equal(r.status, 200, r.body);
      for (const [k, u] of Object.entries(up)) {
        assert.equal(seen(u).length, counts[k]! + (k === expected ? 1 : 0), `${k} count`);
      }
      const got = seen(up[expected]).at(-1)!;
      assert.equal(got.method, method);
      const wantPath = expected === 'idp' ? '/kc' + path.slice('/auth'.length) : path;
      assert.equal(got.url, wantPath, 'path and query unchanged');
    });
  }

  it('upstreamPath joins base paths and strips the /auth prefix', () => {
    assert.equal(upstreamPath(new URL('http://h:1'), '/api/x?y=1'), '/api/x?y=1');
    assert.equal(upstreamPath(new URL('http://h:1/base/'), '/api/x'), '/base/api/x');
    assert.equal(upstreamPath(new URL('http://kc:8080'), '/auth/realms/r/x?a=b', '/auth'), '/realms/r/x?a=b');
    assert.equal(upstreamPath(new URL('http://kc:8080/auth'), '/auth/realms/r', '/auth'), '/auth/realms/r');
  });
});
