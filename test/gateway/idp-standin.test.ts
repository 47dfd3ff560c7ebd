import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../lib/log.ts';
import { startIdp, type Idp } from '../../standins/idp/server.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startUpstream, type TestUpstream } from '../support/upstream.ts';

// The gateway against the project's identity-provider stand-in (oidc-provider at Keycloak's paths).
describe('gateway with the identity-provider stand-in', () => {
  let db: TestDatabase;
  let idp: Idp;
  let stateDir: string;
  let graph: TestUpstream;
  let gw: TestGateway;

  before(async () => {
    db = await createTestDatabase();
    stateDir = mkdtempSync(join(tmpdir(), 'gw-idp-'));
    idp = await startIdp({ stateDir, realm: 'service' }, createLogger('idp', { write: () => undefined }));
    graph = await startUpstream('graph');
    gw = await startGateway({
      DATABASE_URL: db.url,
      KEYCLOAK_URL: idp.listenUrl,
      KEYCLOAK_REALM: 'service',
      GRAPH_SERVICE_URL: graph.url,
    });
  });
  after(async () => {
    await gw.close();
    await graph.close();
    await idp.close();
    await db.drop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  const clientCredentials = (tokenUrl: string) =>
    fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'service-gateway',
        client_secret: idp.gatewayClientSecret,
      }),
    });

  it('a service-account token from the provider is accepted', async () => {
    const res = await clientCredentials(idp.tokenUrl);
    assert.equal(res.status, 200);
    const { access_token } = (await res.json()) as { access_token: string };
    const r = await fetch(gw.url + '/api/graph/stats', { headers: { authorization: `Bearer ${access_token}` } });
    assert.equal(r.status, 200);
  });

  it('/auth/realms/<realm>/... reaches the provider unvalidated: discovery and the token endpoint', async () => {
    const disc = await fetch(`${gw.url}/auth/realms/service/.well-known/openid-configuration`);
    assert.equal(disc.status, 200);
    const meta = (await disc.json()) as { issuer: string; jwks_uri: string };
    assert.equal(meta.issuer, idp.issuer);
    const viaGateway = await clientCredentials(`${gw.url}/auth/realms/service/protocol/openid-connect/token`);
    assert.equal(viaGateway.status, 200, 'a form body streams through /auth unchanged');
    const { access_token } = (await viaGateway.json()) as { access_token: string };
    const r = await fetch(gw.url + '/api/graph/stats', { headers: { authorization: `Bearer ${access_token}` } });
    assert.equal(r.status, 200);
  });
});
