/**
 * The realm file in deploy/keycloak, imported into a real Keycloak (the distribution from Maven Central), and
 * compared with the stand-in: both must hand the gateway the same kind of token.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { startIdp } from '../../standins/idp/server.ts';
import { quietLog, repoRoot } from './helpers.ts';
import { startKeycloak, type RunningKeycloak } from './keycloak-dist.ts';

const REALM = 'ckg-test';
const SECRET = randomBytes(18).toString('base64url');
const FRONTEND = 'http://localhost:5173';

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

describe('Keycloak realm file (real Keycloak)', { timeout: 420_000 }, () => {
  let kc: RunningKeycloak;
  let issuer: string;
  before(async () => {
    kc = await startKeycloak([join(repoRoot, 'deploy/keycloak/realm.json')], REALM, {
      KEYCLOAK_REALM: REALM,
      KC_GATEWAY_CLIENT_SECRET: SECRET,
      FRONTEND_URL: FRONTEND,
    });
    issuer = `${kc.baseUrl}/realms/${REALM}`;
  });
  after(() => kc?.stop());

  it('imports the realm under the name from KEYCLOAK_REALM', async () => {
    const d = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    assert.equal(d.issuer, issuer);
    assert.equal(d.jwks_uri, `${issuer}/protocol/openid-connect/certs`);
    assert.equal(d.token_endpoint, `${issuer}/protocol/openid-connect/token`);
  });

  it('gives service-gateway a client-credentials token that its JWKS validates; a wrong secret gets none', async () => {
    const { status, body } = await clientCredentials(`${issuer}/protocol/openid-connect/token`, SECRET);
    assert.equal(status, 200, JSON.stringify(body));
    const token = String(body.access_token);
    const header = decodeProtectedHeader(token);
    assert.equal(header.alg, 'RS256');
    assert.equal(typeof header.kid, 'string');
    const jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
    const { payload } = await jwtVerify(token, jwks, { issuer, algorithms: ['RS256'] });
    assert.equal(payload.azp, 'service-gateway');
    assert.equal(payload.typ, 'Bearer');
    assert.equal(payload.preferred_username, 'service-account-service-gateway');

    const wrong = await clientCredentials(`${issuer}/protocol/openid-connect/token`, 'wrong');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.access_token, undefined);
  });

  it('makes service-frontend a public PKCE client with the configured redirect URIs', async () => {
    const auth = (params: Record<string, string>) => {
      const u = new URL(`${issuer}/protocol/openid-connect/auth`);
      for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
      return fetch(u, { redirect: 'manual' });
    };
    const base = { client_id: 'service-frontend', response_type: 'code', scope: 'openid', state: 's' };
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const login = await auth({
      ...base,
      redirect_uri: `${FRONTEND}/callback`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    assert.equal(login.status, 200, 'the login page is shown');
    assert.match(await login.text(), /kc-form-login/);

    const noPkce = await auth({ ...base, redirect_uri: `${FRONTEND}/callback` });
    const location = new URL(noPkce.headers.get('location') ?? 'http://none/');
    assert.equal(`${location.origin}${location.pathname}`, `${FRONTEND}/callback`);
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
    const idp = await startIdp({ stateDir: dir, realm: REALM, gatewayClientSecret: SECRET }, quietLog);
    try {
      const real = String(
        (await clientCredentials(`${issuer}/protocol/openid-connect/token`, SECRET)).body.access_token,
      );
      const stand = String((await clientCredentials(idp.tokenUrl, SECRET)).body.access_token);
      const h = (t: string) => {
        const { alg, typ, kid } = decodeProtectedHeader(t);
        return { alg, typ, hasKid: typeof kid === 'string' };
      };
      assert.deepEqual(h(stand), h(real));
      const claims = async (t: string, iss: string, jwksUrl: string) =>
        (await jwtVerify(t, createRemoteJWKSet(new URL(jwksUrl)), { issuer: iss })).payload;
      const r = await claims(real, issuer, `${issuer}/protocol/openid-connect/certs`);
      const s = await claims(stand, idp.issuer, idp.jwksUrl);
      for (const name of ['iss', 'sub', 'exp', 'iat', 'jti', 'aud', 'azp', 'typ', 'preferred_username', 'client_id']) {
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
