/**
 * Keycloak-shaped access-token claims. The provider's JWT customiser and the terminal `token` command both use these,
 * so a token from either looks the same to the gateway: header `{ alg: RS256, typ: JWT, kid }`, claims `iss`, `sub`
 * (a UUID), `aud: account`, `azp`, `typ: Bearer`, `exp`, `iat`, `jti`, `scope`, and for people `preferred_username`,
 * `name`, `email`, `email_verified`, `realm_access`.
 */
import { createHash } from 'node:crypto';

export const FRONTEND_CLIENT_ID = 'service-frontend';
export const GATEWAY_CLIENT_ID = 'service-gateway';
export const AUDIENCE = 'account';

/** A stable UUID (v5 layout over SHA-256) for a name within a realm, like Keycloak's user ids. */
export function stableUuid(realm: string, name: string): string {
  const h = createHash('sha256').update(`${realm}\0${name}`).digest();
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x50;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

export function personSubject(realm: string, username: string): string {
  return stableUuid(realm, `user:${username}`);
}

/** Profile claims of a person (what the `profile` and `email` scopes release). */
export function personClaims(realm: string, username: string): Record<string, unknown> {
  return {
    preferred_username: username,
    name: username.charAt(0).toUpperCase() + username.slice(1),
    given_name: username.charAt(0).toUpperCase() + username.slice(1),
    email: `${username}@example.invalid`,
    email_verified: true,
    realm_access: { roles: [`default-roles-${realm}`, 'offline_access'] },
  };
}

/** Claims of a client's service account (client-credentials tokens). */
export function serviceAccountClaims(realm: string, clientId: string): Record<string, unknown> {
  return {
    sub: stableUuid(realm, `service-account:${clientId}`),
    preferred_username: `service-account-${clientId}`,
    realm_access: { roles: [`default-roles-${realm}`] },
  };
}
