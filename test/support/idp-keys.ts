/**
 * A minimal identity provider for gateway tests: real RSA keys (jose), a JWKS served over real HTTP at Keycloak's
 * path, and a signer that can also forge hostile tokens. The full stand-in (standins/idp) is used end to end.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from 'jose';

export interface TestKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function newKey(kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateKey, publicJwk };
}

export interface TestIdp {
  /** KEYCLOAK_URL for the gateway. */
  url: string;
  realm: string;
  issuer: string;
  /** How many times the key set was fetched. */
  fetches: number;
  /** Delay before the key set is answered (a slow provider). */
  delayMs: number;
  /** The keys the JWKS lists now. */
  keys: TestKey[];
  /** Other paths answered (for /auth/* proxy tests): path → handler. */
  extra: Map<string, http.RequestListener>;
  sign(
    claims?: JWTPayload,
    options?: { key?: TestKey; kid?: string | null; expiresIn?: number; nowMs?: number },
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startTestIdp(realm = 'test'): Promise<TestIdp> {
  const first = await newKey('key-1');
  const extra = new Map<string, http.RequestListener>();
  const idp: Partial<TestIdp> & { fetches: number; delayMs: number; keys: TestKey[] } = {
    fetches: 0,
    delayMs: 0,
    keys: [first],
  };
  const certsPath = `/realms/${realm}/protocol/openid-connect/certs`;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === certsPath) {
      idp.fetches++;
      const body = JSON.stringify({ keys: idp.keys.map((k) => k.publicJwk) });
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(body);
      }, idp.delayMs);
      return;
    }
    const handler = extra.get(path);
    if (handler) return handler(req, res);
    res.statusCode = 404;
    res.end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${url}/realms/${realm}`;
  const methods: Omit<TestIdp, 'fetches' | 'delayMs' | 'keys'> = {
    url,
    realm,
    issuer,
    extra,
    async sign(
      claims: JWTPayload = {},
      options: { key?: TestKey; kid?: string | null; expiresIn?: number; nowMs?: number } = {},
    ) {
      const key = options.key ?? idp.keys[0]!;
      const kid = options.kid === undefined ? key.kid : options.kid;
      // nowMs: the verifier's clock when a test drives it (iat and exp relative to that clock, not the wall clock).
      const now = Math.floor((options.nowMs ?? Date.now()) / 1000);
      return new SignJWT({ sub: 'user-1', iss: issuer, iat: now, exp: now + (options.expiresIn ?? 300), ...claims })
        .setProtectedHeader(kid === null ? { alg: 'RS256' } : { alg: 'RS256', kid })
        .sign(key.privateKey);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return Object.assign(idp, methods);
}
