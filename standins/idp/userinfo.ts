/**
 * Keycloak's userinfo endpoint accepts the realm's JWT access tokens. oidc-provider's own userinfo endpoint does not
 * accept JWT-format access tokens issued for a resource server, so the stand-in answers userinfo itself: it verifies
 * the bearer token with the realm's published keys and issuer, then returns the person's claims.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { personClaims, personSubject } from './claims.ts';
import type { IdpUser } from './config.ts';

export interface UserinfoContext {
  issuer: string;
  realm: string;
  jwks: () => JSONWebKeySet;
  users: readonly IdpUser[];
}

function send(res: ServerResponse, status: number, body: unknown, challenge?: string) {
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  };
  if (challenge !== undefined) headers['www-authenticate'] = challenge;
  res.writeHead(status, headers);
  res.end(text);
}

export async function handleUserinfo(ctx: UserinfoContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'POST') return send(res, 405, { error: 'invalid_request' });
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!m?.[1]) {
    return send(res, 401, { error: 'invalid_request', error_description: 'missing bearer token' }, 'Bearer');
  }
  try {
    const { payload } = await jwtVerify(m[1], createLocalJWKSet(ctx.jwks()), {
      issuer: ctx.issuer,
      algorithms: ['RS256'],
    });
    const user = ctx.users.find((u) => personSubject(ctx.realm, u.username) === payload.sub);
    if (!user) return send(res, 401, { error: 'invalid_token', error_description: 'not a person' }, 'Bearer');
    const { realm_access: _roles, ...claims } = personClaims(ctx.realm, user.username);
    return send(res, 200, { sub: payload.sub, ...claims });
  } catch {
    return send(
      res,
      401,
      { error: 'invalid_token', error_description: 'token invalid or expired' },
      'Bearer error="invalid_token"',
    );
  }
}
