import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { startIdp, type Idp } from '../../standins/idp/server.ts';
import { quietLog, runEntry } from './helpers.ts';
import { waitFor } from '../support/wait.ts';

const SECRET = 'gw-secret-for-tests';
const REDIRECT = 'http://localhost:5173/callback';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const dirs: string[] = [];
function stateDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'idp-test-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

async function form(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function clientCredentials(idp: Idp, secret = SECRET) {
  return form(idp.tokenUrl, { grant_type: 'client_credentials' }, { authorization: basic('service-gateway', secret) });
}

/** Verifies a token the way the gateway does: kid from the header, RS256 with the JWKS, exp, iss. */
/** Verifies as a relying party would, at `currentDate` (default: now). */
async function verify(idp: Idp, token: string, currentDate?: Date): Promise<JWTPayload> {
  const jwks = createRemoteJWKSet(new URL(idp.jwksUrl), { cacheMaxAge: 0, cooldownDuration: 0 });
  const { payload } = await jwtVerify(token, jwks, {
    issuer: idp.issuer,
    algorithms: ['RS256'],
    ...(currentDate ? { currentDate } : {}),
  });
  return payload;
}

async function publishedKids(idp: Idp): Promise<string[]> {
  const jwks = (await (await fetch(idp.jwksUrl)).json()) as { keys: { kid: string }[] };
  return jwks.keys.map((k) => k.kid);
}

/** A browser's cookie handling, enough for one origin. */
class Browser {
  readonly cookies = new Map<string, string>();
  async get(url: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair?.indexOf('=') ?? -1;
      if (pair && i > 0) this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  }
  /** Follows redirects within the IdP; stops at the first location outside it (the client's redirect URI). */
  async follow(idp: Idp, url: string): Promise<{ res: Response; url: string }> {
    let current = url;
    for (let hops = 0; hops < 10; hops++) {
      const res = await this.get(current);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { res, url: current };
      const next = new URL(location, current).href;
      if (!next.startsWith(new URL(idp.issuer).origin)) return { res, url: next };
      current = next;
    }
    throw new Error('too many redirects');
  }
}

function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

function authUrl(idp: Idp, params: Record<string, string>): string {
  const u = new URL(idp.authorizationUrl);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.href;
}

describe('idp stand-in', () => {
  let idp: Idp;
  before(async () => {
    idp = await startIdp(
      {
        stateDir: stateDir(),
        realm: 'test-realm',
        gatewayClientSecret: SECRET,
        frontendRedirectUris: ['http://localhost:5173/*'],
      },
      quietLog,
    );
  });
  after(() => idp.close());

  it('publishes a discovery document with Keycloak paths under /realms/<realm>', async () => {
    assert.match(idp.issuer, /^http:\/\/127\.0\.0\.1:\d+\/realms\/test-realm$/);
    const res = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    assert.equal(res.status, 200);
    const d = (await res.json()) as Record<string, unknown>;
    assert.equal(d.issuer, idp.issuer);
    assert.equal(d.jwks_uri, `${idp.issuer}/protocol/openid-connect/certs`);
    assert.equal(d.token_endpoint, `${idp.issuer}/protocol/openid-connect/token`);
    assert.equal(d.authorization_endpoint, `${idp.issuer}/protocol/openid-connect/auth`);
    assert.equal(d.userinfo_endpoint, `${idp.issuer}/protocol/openid-connect/userinfo`);
    assert.equal(d.end_session_endpoint, `${idp.issuer}/protocol/openid-connect/logout`);
    assert.deepEqual(d.code_challenge_methods_supported, ['S256']);
    assert.ok((d.grant_types_supported as string[]).includes('client_credentials'));
    assert.ok((d.id_token_signing_alg_values_supported as string[]).includes('RS256'));
  });

  it('serves a JWKS of public RS256 signing keys only', async () => {
    const res = await fetch(idp.jwksUrl);
    assert.equal(res.status, 200);
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    assert.equal(keys.length, 1);
    const [key] = keys;
    assert.equal(key?.kty, 'RSA');
    assert.equal(key?.alg, 'RS256');
    assert.equal(key?.use, 'sig');
    assert.equal(key?.kid, idp.kids()[0]);
    for (const secretPart of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(key?.[secretPart], undefined);
  });

  it('answers 404 outside the realm', async () => {
    assert.equal(
      (await fetch(`${new URL(idp.issuer).origin}/realms/other/.well-known/openid-configuration`)).status,
      404,
    );
  });

  it('issues a client-credentials JWT for service-gateway that the JWKS validates', async () => {
    const { status, body } = await clientCredentials(idp);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 300);
    const token = String(body.access_token);
    const header = decodeProtectedHeader(token);
    assert.deepEqual(header, { alg: 'RS256', typ: 'JWT', kid: idp.kids()[0] });
    const claims = await verify(idp, token);
    assert.equal(claims.iss, idp.issuer);
    assert.equal(claims.azp, 'service-gateway');
    assert.equal(claims.typ, 'Bearer');
    assert.equal(claims.preferred_username, 'service-account-service-gateway');
    assert.match(String(claims.sub), UUID);
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 300);
    assert.ok(Math.abs((claims.iat ?? 0) - Date.now() / 1000) < 5);
    assert.equal(typeof claims.jti, 'string');
  });

  it('accepts the secret in the form body too (client_secret_post)', async () => {
    const { status } = await form(idp.tokenUrl, {
      grant_type: 'client_credentials',
      client_id: 'service-gateway',
      client_secret: SECRET,
    });
    assert.equal(status, 200);
  });

  it('refuses a wrong secret, an unknown client, and client credentials for the public client', async () => {
    const wrong = await clientCredentials(idp, 'not-the-secret');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error, 'invalid_client');
    assert.equal(wrong.body.access_token, undefined);
    const unknown = await form(
      idp.tokenUrl,
      { grant_type: 'client_credentials' },
      { authorization: basic('someone-else', SECRET) },
    );
    assert.equal(unknown.status, 401);
    const publicClient = await form(idp.tokenUrl, { grant_type: 'client_credentials', client_id: 'service-frontend' });
    assert.equal(publicClient.status, 400);
    assert.equal(publicClient.body.access_token, undefined);
  });

  it('runs the authorization code flow with PKCE S256 for service-frontend, driven over HTTP', async () => {
    const browser = new Browser();
    const { challenge } = pkcePair();
    const start = authUrl(idp, {
      client_id: 'service-frontend',
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid profile email',
      state: 'st-1',
      nonce: 'n-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const page = await browser.follow(idp, start);
    assert.equal(page.res.status, 200);
    const html = await page.res.text();
    const action = /<form id="kc-form-login" method="post" action="([^"]+)"/.exec(html)?.[1];
    assert.ok(action, html);
    const loginUrl = new URL(action, page.url).href;

    const bad = await browser.get(loginUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&password=wrong',
    });
    assert.equal(bad.status, 401);
    assert.match(await bad.text(), /Invalid username or password/);

    const ok = await browser.get(loginUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&password=alice',
    });
    assert.equal(ok.status, 303);
    const done = await browser.follow(idp, new URL(ok.headers.get('location') ?? '', loginUrl).href);
    const callback = new URL(done.url);
    assert.equal(`${callback.origin}${callback.pathname}`, REDIRECT);
    assert.equal(callback.searchParams.get('state'), 'st-1');
    assert.equal(callback.searchParams.get('iss'), idp.issuer);
    const code = callback.searchParams.get('code');
    assert.ok(code);

    const wrongVerifier = await form(idp.tokenUrl, {
      grant_type: 'authorization_code',
      client_id: 'service-frontend',
      code,
      redirect_uri: REDIRECT,
      code_verifier: pkcePair().verifier,
    });
    assert.equal(wrongVerifier.status, 400);
    assert.equal(wrongVerifier.body.error, 'invalid_grant');

    // The code was spent by the failed attempt (codes are single-use); run the flow again with the session cookie.
    const again = pkcePair();
    const second = await browser.follow(
      idp,
      authUrl(idp, {
        client_id: 'service-frontend',
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid profile email',
        state: 'st-2',
        code_challenge: again.challenge,
        code_challenge_method: 'S256',
      }),
    );
    const code2 = new URL(second.url).searchParams.get('code');
    assert.ok(code2, `no code: ${second.url}`);
    const tokens = await form(idp.tokenUrl, {
      grant_type: 'authorization_code',
      client_id: 'service-frontend',
      code: code2,
      redirect_uri: REDIRECT,
      code_verifier: again.verifier,
    });
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    assert.equal(tokens.body.token_type, 'Bearer');
    assert.equal(typeof tokens.body.id_token, 'string');
    assert.equal(typeof tokens.body.refresh_token, 'string');
    const access = String(tokens.body.access_token);
    assert.equal(decodeProtectedHeader(access).kid, idp.kids()[0]);
    const claims = await verify(idp, access);
    assert.equal(claims.azp, 'service-frontend');
    assert.equal(claims.typ, 'Bearer');
    assert.equal(claims.preferred_username, 'alice');
    assert.equal(claims.email, 'alice@example.invalid');
    assert.match(String(claims.sub), UUID);
    assert.deepEqual(String(claims.scope).split(' ').sort(), ['email', 'openid', 'profile']);

    // Userinfo accepts the access token, as Keycloak's does.
    const info = await fetch(`${idp.issuer}/protocol/openid-connect/userinfo`, {
      headers: { authorization: `Bearer ${access}` },
    });
    assert.equal(info.status, 200);
    const person = (await info.json()) as Record<string, unknown>;
    assert.equal(person.sub, claims.sub);
    assert.equal(person.preferred_username, 'alice');

    // The refresh token gives a new access token.
    const refreshed = await form(idp.tokenUrl, {
      grant_type: 'refresh_token',
      client_id: 'service-frontend',
      refresh_token: String(tokens.body.refresh_token),
    });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    const again2 = await verify(idp, String(refreshed.body.access_token));
    assert.equal(again2.preferred_username, 'alice');
    assert.notEqual(refreshed.body.access_token, access);
  });

  it('refuses userinfo without a person token', async () => {
    const userinfo = `${idp.issuer}/protocol/openid-connect/userinfo`;
    assert.equal((await fetch(userinfo)).status, 401);
    const bad = await fetch(userinfo, { headers: { authorization: 'Bearer not.a.jwt' } });
    assert.equal(bad.status, 401);
    const service = String((await clientCredentials(idp)).body.access_token);
    const svc = await fetch(userinfo, { headers: { authorization: `Bearer ${service}` } });
    assert.equal(svc.status, 401);
  });

  it('requires PKCE from the public client', async () => {
    const browser = new Browser();
    const res = await browser.follow(
      idp,
      authUrl(idp, {
        client_id: 'service-frontend',
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        state: 's',
      }),
    );
    const back = new URL(res.url);
    assert.equal(back.searchParams.get('error'), 'invalid_request');
    assert.match(back.searchParams.get('error_description') ?? '', /PKCE/);
    assert.equal(back.searchParams.get('code'), null);
  });

  it('refuses a redirect URI that is not registered, without redirecting', async () => {
    const res = await fetch(
      authUrl(idp, {
        client_id: 'service-frontend',
        response_type: 'code',
        redirect_uri: 'http://evil.example/callback',
        scope: 'openid',
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    );
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('location'), null);
  });
});

describe('idp stand-in: lifetimes, keys and commands', () => {
  it('honours a short token lifetime: the token expires', async () => {
    const idp = await startIdp(
      { stateDir: stateDir(), gatewayClientSecret: SECRET, accessTokenTtlSeconds: 1 },
      quietLog,
    );
    try {
      const token = String((await clientCredentials(idp)).body.access_token);
      const claims = await verify(idp, token);
      assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 1);
      // The verifier's clock a second past the token's expiry, instead of waiting for the wall clock to get there.
      const past = new Date(((claims.exp ?? 0) + 1) * 1000);
      await assert.rejects(verify(idp, token, past), joseErrors.JWTExpired);
    } finally {
      await idp.close();
    }
  });

  it('keeps its signing keys in the state folder across restarts', async () => {
    const dir = stateDir();
    const first = await startIdp({ stateDir: dir, gatewayClientSecret: SECRET }, quietLog);
    const token = String((await clientCredentials(first)).body.access_token);
    const kid = first.kids()[0];
    await first.close();
    assert.equal(statSync(join(dir, 'keys.json')).mode & 0o777, 0o600);
    const second = await startIdp({ stateDir: dir, gatewayClientSecret: SECRET }, quietLog);
    try {
      assert.deepEqual(await publishedKids(second), [kid]);
      const jwks = createRemoteJWKSet(new URL(second.jwksUrl));
      await jwtVerify(token, jwks, { issuer: first.issuer });
    } finally {
      await second.close();
    }
  });

  it('rotation: the running server publishes the new key, old tokens validate for the grace period, then not', async () => {
    const dir = stateDir();
    const idp = await startIdp({ stateDir: dir, gatewayClientSecret: SECRET }, quietLog);
    try {
      const oldToken = String((await clientCredentials(idp)).body.access_token);
      const [oldKid] = await publishedKids(idp);

      const rotate = runEntry('standins/idp/cli.ts', { IDP_STATE_DIR: dir }, ['rotate', '--grace', '3']);
      assert.equal(await rotate.exited, 0, rotate.stderr());
      const rotated = rotate.lines.find((l) => l.event === 'idp_key_rotated');
      const newKid = String(rotated?.signing_kid);
      assert.notEqual(newKid, oldKid);

      // The server notices the key file by itself.
      const kids = await waitFor(
        'the new key in the JWKS',
        async () => {
          const k = await publishedKids(idp);
          return k.length === 2 ? k : undefined;
        },
        5000,
      );
      assert.deepEqual(kids, [newKid, oldKid]);

      const newToken = String((await clientCredentials(idp)).body.access_token);
      assert.equal(decodeProtectedHeader(newToken).kid, newKid);
      await verify(idp, newToken);
      await verify(idp, oldToken); // within the grace period

      await waitFor(
        'the old key to leave the JWKS',
        async () => ((await publishedKids(idp)).length === 1 ? true : undefined),
        6000,
      );
      assert.deepEqual(await publishedKids(idp), [newKid]);
      await assert.rejects(verify(idp, oldToken), joseErrors.JWKSNoMatchingKey);
      await verify(idp, newToken);
    } finally {
      await idp.close();
    }
  });

  it('prints a person token at the terminal that the running server’s JWKS validates', async () => {
    const dir = stateDir();
    const idp = await startIdp({ stateDir: dir, gatewayClientSecret: SECRET, realm: 'cli-realm' }, quietLog);
    try {
      const proc = runEntry('standins/idp/cli.ts', { IDP_STATE_DIR: dir, KEYCLOAK_REALM: 'cli-realm' }, [
        'token',
        '--user',
        'bob',
        '--issuer',
        idp.issuer,
      ]);
      assert.equal(await proc.exited, 0, proc.stderr());
      const token = String(proc.lines[0]?.raw);
      const claims = await verify(idp, token);
      assert.equal(claims.preferred_username, 'bob');
      assert.equal(claims.azp, 'service-frontend');
      assert.equal(claims.typ, 'Bearer');
      assert.equal(claims.iss, idp.issuer);

      const unknown = runEntry('standins/idp/cli.ts', { IDP_STATE_DIR: dir }, ['token', '--user', 'mallory']);
      assert.equal(await unknown.exited, 1);
      assert.match(unknown.stderr(), /unknown user "mallory"/);
    } finally {
      await idp.close();
    }
  });

  it('entry point: starts from the environment, generates and keeps the gateway secret private, stops on SIGTERM', async () => {
    const dir = stateDir();
    const proc = runEntry('standins/idp/main.ts', { IDP_PORT: '0', IDP_STATE_DIR: dir, KEYCLOAK_REALM: 'envrealm' });
    try {
      const started = await proc.waitFor('idp_started');
      const issuer = String(started.issuer);
      assert.match(issuer, /\/realms\/envrealm$/);
      const secretFile = join(dir, 'gateway-client-secret');
      assert.equal(statSync(secretFile).mode & 0o777, 0o600);
      const secret = readFileSync(secretFile, 'utf8').trim();
      assert.ok(secret.length >= 32);
      const res = await form(
        `${issuer}/protocol/openid-connect/token`,
        { grant_type: 'client_credentials' },
        { authorization: basic('service-gateway', secret) },
      );
      assert.equal(res.status, 200);
      assert.ok(!JSON.stringify(proc.lines).includes(secret), 'the client secret is never logged');
      assert.ok(!JSON.stringify(proc.lines).includes(String(res.body.access_token)), 'tokens are never logged');
    } finally {
      assert.equal(await proc.stop(), 0);
    }
    assert.ok(proc.lines.some((l) => l.event === 'idp_stopped'));
  });

  it('entry point: refuses a bad realm name and names the variable', async () => {
    const proc = runEntry('standins/idp/main.ts', { IDP_PORT: '0', IDP_STATE_DIR: stateDir(), KEYCLOAK_REALM: 'a/b' });
    assert.notEqual(await proc.exited, 0);
    assert.match(JSON.stringify(proc.lines), /KEYCLOAK_REALM/);
  });
});
