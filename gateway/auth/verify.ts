/**
 * Access-token validation, step by step as the contract lists it: kid from the unverified header, key from the
 * provider's key set, RS256 signature, exp (required), iss equal to the configured issuer. The audience is not
 * checked. Every failure is UNAUTHORIZED except a valid, expired token: token_expired.
 */
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { ServiceError, TokenExpiredError, UnauthorizedError } from '../../lib/errors.ts';
import type { KeySet } from './key-set.ts';

export interface Claims extends JWTPayload {
  exp: number;
}

export interface TokenVerifier {
  verify(token: string): Promise<Claims>;
}

/**
 * Verified tokens are remembered (up to `cacheSize`, oldest first out) so a client's repeated requests cost a map
 * lookup instead of an RSA verification. A remembered token is still refused once its exp passes, and once the
 * provider's key set no longer holds its kid.
 */
export function createVerifier(
  keys: KeySet,
  issuer: string,
  options: { now?: () => number; cacheSize?: number } = {},
): TokenVerifier {
  const now = options.now ?? Date.now;
  const cacheSize = options.cacheSize ?? 5000;
  const verified = new Map<string, { claims: Claims; kid: string }>();
  return {
    async verify(token: string): Promise<Claims> {
      const hit = verified.get(token);
      if (hit) {
        if (hit.claims.exp * 1000 <= now()) {
          verified.delete(token);
          throw new TokenExpiredError();
        }
        if (keys.holds(hit.kid)) return hit.claims;
        verified.delete(token);
      }
      const claims = await verifyFully(token);
      verified.set(token, claims);
      if (verified.size > cacheSize) verified.delete(verified.keys().next().value!);
      return claims.claims;
    },
  };

  async function verifyFully(token: string): Promise<{ claims: Claims; kid: string }> {
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch (err) {
      throw new UnauthorizedError('malformed token', { cause: err });
    }
    if (header.alg !== 'RS256') throw new UnauthorizedError(`token algorithm ${String(header.alg)} is not accepted`);
    if (typeof header.kid !== 'string' || header.kid === '') throw new UnauthorizedError('token has no key id');
    const key = await keys.get(header.kid);
    if (!key) throw new UnauthorizedError('token key id is not in the identity provider key set');
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['RS256'],
        issuer,
        requiredClaims: ['exp'],
        currentDate: new Date(now()),
      });
      return { claims: payload as Claims, kid: header.kid };
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      if (err instanceof joseErrors.JWTExpired) throw new TokenExpiredError('token expired', { cause: err });
      if (err instanceof joseErrors.JWTClaimValidationFailed)
        throw new UnauthorizedError(`token claim ${err.claim} is invalid`, { cause: err });
      throw new UnauthorizedError('token signature or format is invalid', { cause: err });
    }
  }
}

/** The claims a request carries when AUTH_DISABLED is set (development only). */
export function stubAdminClaims(): Claims {
  return {
    sub: 'auth-disabled-admin',
    preferred_username: 'admin',
    realm_access: { roles: ['admin'] },
    exp: Number.MAX_SAFE_INTEGER,
  };
}
