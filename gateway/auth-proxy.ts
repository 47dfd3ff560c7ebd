/**
 * What `/auth/**` forwards to the identity provider (docs/security.md): only the endpoints an OpenID Connect client
 * and the provider's own login pages need, of the configured realm only, with the methods they take. Everything else
 * (the admin API, the account console, other realms such as Keycloak's `master`, TRACE, PUT, PROPFIND) is answered by
 * the gateway in the one error shape, as are the provider's own 404s and 5xx (OAuth errors of the token endpoint,
 * `{ error, error_description }`, pass unchanged: OIDC clients read them).
 */
import type http from 'node:http';
import { NotFoundError, UpstreamError, type ServiceError } from '../lib/errors.ts';
import { MethodNotAllowedError } from './http-errors.ts';

type Methods = readonly string[];
const READ: Methods = ['GET', 'HEAD', 'OPTIONS'];
const READ_POST: Methods = ['GET', 'HEAD', 'POST', 'OPTIONS'];
const POST: Methods = ['POST', 'OPTIONS'];

/** Paths below `/realms/<realm>` (Keycloak's layout; the stand-in in standins/idp serves the same). */
const REALM_PATHS: ReadonlyArray<[RegExp, Methods]> = [
  [/^\/\.well-known\/openid-configuration$/, READ],
  [/^\/protocol\/openid-connect\/certs$/, READ],
  [/^\/protocol\/openid-connect\/auth$/, READ_POST],
  [/^\/protocol\/openid-connect\/token$/, POST],
  [/^\/protocol\/openid-connect\/token\/introspect$/, POST],
  [/^\/protocol\/openid-connect\/revoke$/, POST],
  [/^\/protocol\/openid-connect\/userinfo$/, READ_POST],
  [/^\/protocol\/openid-connect\/logout(\/[^/]+)*$/, READ_POST],
  [/^\/protocol\/openid-connect\/login-status-iframe\.html(\/init)?$/, READ],
  [/^\/protocol\/openid-connect\/3p-cookies\/[^/]+$/, READ],
  // The provider's login pages (forms post back to them) and identity brokering's callbacks.
  [/^\/login-actions(\/[^/]+)+$/, READ_POST],
  [/^\/broker(\/[^/]+)+$/, READ_POST],
];

/** Paths below the provider's base: the login pages' static assets. */
const BASE_PATHS: ReadonlyArray<[RegExp, Methods]> = [[/^\/resources(\/[^/]+)+$/, READ]];

export type IdpVerdict = { ok: true } | { ok: false; error: ServiceError };

/**
 * Whether `method path` (the path below `/auth`, before the query) is forwarded. Encoded slashes and backslashes are
 * refused: the provider could decode them into another path than the one checked here.
 */
export function idpRequest(method: string, path: string, realm: string): IdpVerdict {
  const missing = { ok: false, error: new NotFoundError('identity provider endpoint', `/auth${path}`) } as const;
  if (/%2f|%5c|\\/i.test(path)) return missing;
  const prefix = `/realms/${encodeURIComponent(realm)}`;
  let table = BASE_PATHS;
  let rest = path;
  if (path.startsWith(`${prefix}/`)) {
    table = REALM_PATHS;
    rest = path.slice(prefix.length);
  }
  const hit = table.find(([re]) => re.test(rest));
  if (!hit) return missing;
  if (!hit[1].includes(method)) {
    return { ok: false, error: new MethodNotAllowedError(method, `/auth${path}`, [...hit[1]]) };
  }
  return { ok: true };
}

/** The provider's answers the gateway replaces: 404 and 405 (no such endpoint) and 5xx, in the one error shape. */
export function replaceIdpAnswer(status: number, _headers: http.IncomingHttpHeaders): ServiceError | undefined {
  if (status === 404 || status === 405) return new NotFoundError('identity provider endpoint');
  if (status === 503) return new UpstreamError('UPSTREAM_UNAVAILABLE', 'the identity provider is unavailable');
  if (status === 504) return new UpstreamError('UPSTREAM_TIMEOUT', 'the identity provider did not answer in time');
  if (status >= 500) return new UpstreamError('UPSTREAM_DISCONNECTED', `the identity provider failed (HTTP ${status})`);
  return undefined;
}
