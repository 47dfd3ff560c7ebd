/** Mints a person's access token with the realm's current key, as the `token` command prints it. */
import { randomBytes } from 'node:crypto';
import { SignJWT, importJWK } from 'jose';
import { AUDIENCE, FRONTEND_CLIENT_ID, personClaims, personSubject } from './claims.ts';
import { issuerFor, type IdpConfig } from './config.ts';
import { currentKey, loadKeys } from './keys.ts';

export async function mintPersonToken(
  config: IdpConfig,
  username: string,
  options: { ttlSeconds?: number; issuer?: string } = {},
): Promise<string> {
  if (!config.users.some((u) => u.username === username)) {
    throw new Error(
      `unknown user ${JSON.stringify(username)}; known: ${config.users.map((u) => u.username).join(', ')}`,
    );
  }
  const key = currentKey(loadKeys(config.stateDir));
  const issuer =
    options.issuer ??
    issuerFor(config.publicUrl ?? `http://${config.host}:${config.port}`, config.basePath, config.realm);
  const now = Math.floor(Date.now() / 1000);
  const ttl = options.ttlSeconds ?? config.accessTokenTtlSeconds;
  return new SignJWT({
    typ: 'Bearer',
    azp: FRONTEND_CLIENT_ID,
    scope: 'openid profile email',
    ...personClaims(config.realm, username),
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid })
    .setIssuer(issuer)
    .setSubject(personSubject(config.realm, username))
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + ttl)
    .setJti(randomBytes(16).toString('base64url'))
    .sign(await importJWK(key.jwk, 'RS256'));
}
