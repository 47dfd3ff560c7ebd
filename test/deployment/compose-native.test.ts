// docker-compose.yml run as written, without a container engine (test/support/compose-native.ts): the application
// services natively with exactly the file's environment, the real Keycloak with the file's KC_* settings and realm
// folder. A token is fetched the way a user outside the deployment fetches it (Keycloak's public address, and the
// gateway's /auth), then a source, a sync followed over SSE and the reads go through the gateway's public port; the
// operators' endpoints (/ready, /metrics, request ids in the logs) are checked on every component. The realm file in
// deploy/keycloak is checked on that same Keycloak (one boot of it for the suite): imported under the KEYCLOAK_REALM
// the operator chose, its two clients as the gateway and the explorer need them, and tokens of the same kind as the
// stand-in's (standins/idp).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { parse } from 'yaml';
import { encodeNodeId } from '../../lib/node-id.ts';
import { localize } from '../support/compose.ts';
import { ROOT, startNativeDeployment, type NativeDeployment } from '../support/compose-native.ts';
import { createRepo, type TestRepo } from '../support/git-repos.ts';
import { connectSse, type Frame, type SseClient } from '../support/sse-client.ts';
import { uniqueTaskQueue } from '../support/temporal.ts';
import { startIdp } from '../../standins/idp/server.ts';
import { quietLog } from '../standins/helpers.ts';
import { waitFor } from '../support/wait.ts';
import { jsonCall } from '../support/json-call.ts';

const FILES: Record<string, string> = {
  'README.md': '# Shapes\n\nArea helpers.\n',
  'src/area.ts':
    "import { square } from './square';\n\nexport function area(n: number): number {\n  return square(n);\n}\n",
  'src/square.ts': 'export function square(n: number): number {\n  return n * n;\n}\n',
};

type Json = Record<string, unknown>;

const rowOf = (f: Frame) => JSON.parse(f.data ?? 'null') as { sync_id: string; payload: Record<string, unknown> };

/** The operator's variables: the two the file requires, and a task queue of this run's own (a shared Temporal). */
const VARS = {
  CLIENT_SECRET: randomBytes(18).toString('base64url'),
  POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
  TEMPORAL_TASK_QUEUE: uniqueTaskQueue('deploy'),
  // The test syncs a repository made on local disk (the deployment's default is https and ssh only).
  SOURCE_URL_SCHEMES: 'https,ssh,file',
  // Not the defaults: the realm is imported under the operator's name, the explorer's client takes their address.
  KEYCLOAK_REALM: 'ckg-test',
  FRONTEND_URL: 'http://localhost:5173',
};

/** A client-credentials grant for service-gateway, the secret in a Basic header. */
async function clientCredentials(tokenUrl: string, secret: string) {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`service-gateway:${secret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('docker-compose.yml, run natively', { timeout: 600_000 }, () => {
  let d: NativeDeployment;
  let repo: TestRepo;
  let gateway: string;
  let token: string;
  let stream: SseClient | undefined;
  let sourceId: string;
  let syncId: string;

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    jsonCall(gateway, token, method, path, body, headers);

  before(async () => {
    repo = createRepo(FILES);
    d = await startNativeDeployment(VARS, ['standins']);
    gateway = d.publicUrl(8080);
  });

  after(async () => {
    stream?.close();
    await d?.stop();
    repo?.remove();
  });

  it('gets a token from Keycloak at its public address, with the issuer the gateway checks', async () => {
    await d.keycloak;
    await d.healthy('gateway');
    const kcPublic = d.env.keycloak!.KC_HOSTNAME!;
    assert.match(kcPublic, /^http:\/\/localhost:\d+$/, 'KC_HOSTNAME is the published address');
    const realm = d.env.keycloak!.KEYCLOAK_REALM!;
    const res = await fetch(`${kcPublic}/realms/${realm}/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'service-gateway',
        client_secret: VARS.CLIENT_SECRET,
      }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    token = ((await res.json()) as { access_token: string }).access_token;
    assert.equal(decodeJwt(token).iss, d.env.gateway!.KEYCLOAK_ISSUER, "the token's iss is the gateway's issuer");

    const list = await call('GET', '/api/sources');
    assert.equal(list.status, 200, JSON.stringify(list.body) + d.logs());
  });

  it("also gets one through the gateway's /auth proxy, and the gateway admits it", async () => {
    const realm = d.env.keycloak!.KEYCLOAK_REALM!;
    const res = await fetch(`${gateway}/auth/realms/${realm}/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'service-gateway',
        client_secret: VARS.CLIENT_SECRET,
      }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const viaGateway = ((await res.json()) as { access_token: string }).access_token;
    assert.equal(decodeJwt(viaGateway).iss, d.env.gateway!.KEYCLOAK_ISSUER);
    const r = await fetch(`${gateway}/api/graph/stats`, { headers: { authorization: `Bearer ${viaGateway}` } });
    assert.equal(r.status, 200, await r.text());
  });

  describe('the realm file (deploy/keycloak) in the real Keycloak', () => {
    const issuer = () => `${d.env.keycloak!.KC_HOSTNAME!}/realms/${VARS.KEYCLOAK_REALM}`;

    it('imports the realm under the name from KEYCLOAK_REALM', async () => {
      const doc = (await (await fetch(`${issuer()}/.well-known/openid-configuration`)).json()) as Json;
      assert.equal(doc.issuer, issuer());
      assert.equal(doc.jwks_uri, `${issuer()}/protocol/openid-connect/certs`);
      assert.equal(doc.token_endpoint, `${issuer()}/protocol/openid-connect/token`);
    });

    it('gives service-gateway a client-credentials token that its JWKS validates; a wrong secret gets none', async () => {
      const { status, body } = await clientCredentials(`${issuer()}/protocol/openid-connect/token`, VARS.CLIENT_SECRET);
      assert.equal(status, 200, JSON.stringify(body));
      const access = String(body.access_token);
      const header = decodeProtectedHeader(access);
      assert.equal(header.alg, 'RS256');
      assert.equal(typeof header.kid, 'string');
      const jwks = createRemoteJWKSet(new URL(`${issuer()}/protocol/openid-connect/certs`));
      const { payload } = await jwtVerify(access, jwks, { issuer: issuer(), algorithms: ['RS256'] });
      assert.equal(payload.azp, 'service-gateway');
      assert.equal(payload.typ, 'Bearer');
      assert.equal(payload.preferred_username, 'service-account-service-gateway');

      const wrong = await clientCredentials(`${issuer()}/protocol/openid-connect/token`, 'wrong');
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.access_token, undefined);
    });

    it('makes service-frontend a public PKCE client with the configured redirect URIs', async () => {
      const frontend = VARS.FRONTEND_URL;
      const auth = (params: Record<string, string>) => {
        const u = new URL(`${issuer()}/protocol/openid-connect/auth`);
        for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
        return fetch(u, { redirect: 'manual' });
      };
      const base = { client_id: 'service-frontend', response_type: 'code', scope: 'openid', state: 's' };
      const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
      const login = await auth({
        ...base,
        redirect_uri: `${frontend}/callback`,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      assert.equal(login.status, 200, 'the login page is shown');
      assert.match(await login.text(), /kc-form-login/);

      const noPkce = await auth({ ...base, redirect_uri: `${frontend}/callback` });
      const location = new URL(noPkce.headers.get('location') ?? 'http://none/');
      assert.equal(`${location.origin}${location.pathname}`, `${frontend}/callback`);
      assert.equal(location.searchParams.get('error'), 'invalid_request');
      assert.match(location.searchParams.get('error_description') ?? '', /code_challenge_method/);

      const foreign = await auth({
        ...base,
        redirect_uri: 'http://evil.example/cb',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      assert.equal(foreign.status, 400);
    });

    it('issues the same kind of token as the stand-in: header fields and the claims the gateway reads', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'idp-parity-'));
      const secret = VARS.CLIENT_SECRET;
      const idp = await startIdp({ stateDir: dir, realm: VARS.KEYCLOAK_REALM, gatewayClientSecret: secret }, quietLog);
      try {
        const real = String(
          (await clientCredentials(`${issuer()}/protocol/openid-connect/token`, secret)).body.access_token,
        );
        const stand = String((await clientCredentials(idp.tokenUrl, secret)).body.access_token);
        const h = (t: string) => {
          const { alg, typ, kid } = decodeProtectedHeader(t);
          return { alg, typ, hasKid: typeof kid === 'string' };
        };
        assert.deepEqual(h(stand), h(real));
        const claims = async (t: string, iss: string, jwksUrl: string) =>
          (await jwtVerify(t, createRemoteJWKSet(new URL(jwksUrl)), { issuer: iss })).payload;
        const r = await claims(real, issuer(), `${issuer()}/protocol/openid-connect/certs`);
        const s = await claims(stand, idp.issuer, idp.jwksUrl);
        for (const name of [
          'iss',
          'sub',
          'exp',
          'iat',
          'jti',
          'aud',
          'azp',
          'typ',
          'preferred_username',
          'client_id',
        ]) {
          assert.equal(typeof s[name], typeof r[name], `claim ${name}`);
        }
        for (const name of ['azp', 'typ', 'aud', 'preferred_username', 'client_id']) {
          assert.deepEqual(s[name], r[name], `claim ${name}`);
        }
        assert.equal((s.exp ?? 0) - (s.iat ?? 0), (r.exp ?? 0) - (r.iat ?? 0), 'same default lifetime');
      } finally {
        await idp.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('creates a source and runs a sync followed over SSE to completion', { timeout: 300_000 }, async () => {
    stream = await connectSse(`${gateway}/api/events`, { authorization: `Bearer ${token}` });
    assert.equal(stream.status, 200, stream.body);
    const created = await call('POST', '/api/sources', {
      source_type: 'github_repo',
      owner: 'acme',
      name: 'shapes',
      url: repo.dir,
      default_branch: 'main',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    sourceId = String(created.body.id);
    const started = await call('POST', '/api/syncs', { source_id: sourceId, triggered_by: 'deployment-test' });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    syncId = String(started.body.id);

    const events = stream;
    const end = await waitFor(
      () => `the end of the sync\n${d.logs()}`,
      () => {
        assert.ok(!events.ended, 'the event stream ended early');
        return events.events.find(
          (f) =>
            f.event === 'sync_lifecycle' &&
            rowOf(f).sync_id === syncId &&
            ['completed', 'failed', 'cancelled'].includes(String(rowOf(f).payload.status)),
        );
      },
      240_000,
      100,
    );
    assert.equal(rowOf(end).payload.status, 'completed', `${end.data}\n${d.logs()}`);
    const progress = stream.events.filter((f) => f.event === 'sync_progress' && rowOf(f).sync_id === syncId);
    assert.ok(progress.length > 0, 'progress frames arrived');
  });

  it('serves the reads of the synced repository through the gateway', async () => {
    const graph = await call('GET', `/api/graph?sync_ids=${syncId}`);
    assert.equal(graph.status, 200, JSON.stringify(graph.body));
    const paths = (graph.body.nodes as Array<{ data: { file_path: string } }>).map((n) => n.data.file_path).sort();
    assert.deepEqual(paths, Object.keys(FILES).sort());
    assert.equal((graph.body.edges as unknown[]).length, 1, 'src/area.ts -> src/square.ts');

    const node = encodeURIComponent(encodeNodeId(sourceId, 'src/area.ts')).replace(/%2F/g, '/');
    const detail = await call('GET', `/api/graph/nodes/${node}`);
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    assert.equal((detail.body.node as Json).name, 'area.ts');
    const file = await call('GET', `/api/graph/nodes/${node}/file`);
    assert.equal(file.status, 200);
    assert.equal(file.body.content, FILES['src/area.ts']);

    const search = await call('GET', '/api/graph/search?q=square%20a%20number');
    assert.equal(search.status, 200, JSON.stringify(search.body));
    assert.ok((search.body.results as unknown[]).length > 0);
    const stats = await call('GET', '/api/graph/stats');
    assert.equal(stats.status, 200);
    assert.equal(stats.body.total_nodes, Object.keys(FILES).length);
    const run = await call('GET', `/api/syncs/${syncId}`);
    assert.equal(run.body.status, 'completed');
  });

  it('carries a request id from the caller through the gateway into the components’ log lines', async () => {
    const id = `deploy-${randomBytes(4).toString('hex')}`;
    const missing = await call('GET', `/api/sources/${randomUUID()}`, undefined, { 'x-request-id': id });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('x-request-id'), id);
    const graphLines = d.processes.get('graph')!.lines();
    const line = graphLines.find((l) => l.event === 'request_rejected' && l.request_id === id);
    assert.ok(line, 'the graph component logged the 404 with the request id');

    const made = await call('GET', '/api/graph/stats', undefined, { 'x-request-id': 'not a valid id!' });
    assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, 'an unusable id is replaced');
  });

  it("answers /ready and /metrics on every scrape target of deploy/prometheus, and not on the gateway's public port", async () => {
    const prom = parse(readFileSync(join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: Array<{ job_name: string; dns_sd_configs: Array<{ names: string[]; port: number }> }>;
    };
    const targets = prom.scrape_configs.flatMap((j) =>
      j.dns_sd_configs.flatMap((c) => c.names.map((n) => ({ job: j.job_name, service: n, port: c.port }))),
    );
    assert.deepEqual(targets.map((t) => t.service).sort(), ['gateway', 'graph', 'ingestion', 'worker']);
    const scraped: Record<string, string> = {};
    for (const t of targets) {
      const base = localize(`http://${t.service}:${t.port}`, d.map);
      const ready = await fetch(`${base}/ready`);
      const report = (await ready.json()) as { status: string; checks: Record<string, string> };
      assert.equal(ready.status, 200, `${t.job} /ready: ${JSON.stringify(report)}`);
      assert.equal(report.status, 'ready');
      const metrics = await fetch(`${base}/metrics`);
      assert.equal(metrics.status, 200, t.job);
      assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain/);
      scraped[t.service] = await metrics.text();
    }
    assert.match(scraped.worker!, /^ckg_syncs_total\{status="completed"\} 1$/m);
    assert.match(scraped.worker!, /^ckg_sync_phase_duration_seconds_count\{phase="parsing"\} 1$/m);
    assert.match(
      scraped.worker!,
      /^ckg_model_request_duration_seconds_count\{endpoint="embeddings",outcome="ok"\} \d+/m,
    );
    assert.match(scraped.gateway!, /^ckg_http_requests_total\{method="POST",route="sources",status="201"\} 1$/m);
    assert.match(scraped.gateway!, /^ckg_sse_clients 1$/m);
    assert.match(scraped.gateway!, /^ckg_db_pool_connections\{pool="ckg-gateway-events",state="idle"\} \d+/m);
    assert.match(scraped.graph!, /route="\/api\/graph\/nodes\/\{node_id\}\/file",status="200"/);
    assert.doesNotMatch(scraped.graph!, new RegExp(sourceId), 'no raw ids in labels');
    assert.match(scraped.graph!, /^ckg_db_pool_acquire_seconds_count\{pool="ckg-graph-api"\} \d+/m);
    assert.match(scraped.ingestion!, /route="\/api\/syncs",status="201"/);

    const open = await fetch(`${gateway}/metrics`);
    assert.equal(open.status, 404, 'the public port does not serve /metrics');
  });
});
