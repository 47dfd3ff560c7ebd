/** Environment variables of the identity-provider stand-in (documented in docs/standins.md). */
import { fileURLToPath } from 'node:url';
import { isAbsolute, resolve } from 'node:path';
import { loadConfig, type VarSpec } from '../../lib/config.ts';
import { ConfigError } from '../../lib/errors.ts';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export const idpVars = {
  IDP_BIND: { type: 'string', default: '127.0.0.1' },
  IDP_PORT: { type: 'int', default: 8180, min: 0, max: 65535 },
  /** Browser-facing base address (scheme://host[:port]); the issuer is `<IDP_PUBLIC_URL><IDP_BASE_PATH>/realms/<realm>`. */
  IDP_PUBLIC_URL: { type: 'string', default: '' },
  /** Keycloak's http-relative-path, e.g. `/auth`; empty by default as in Keycloak 17+. */
  IDP_BASE_PATH: { type: 'string', default: '' },
  KEYCLOAK_REALM: { type: 'string', default: 'service' },
  IDP_STATE_DIR: { type: 'string', default: '.stack/idp' },
  IDP_ACCESS_TOKEN_TTL_SECONDS: { type: 'int', default: 300, min: 1, max: 86400 },
  IDP_KEY_GRACE_SECONDS: { type: 'int', default: 3600, min: 0 },
  /** Secret of the confidential `service-gateway` client; empty: generated once into the state folder. */
  KC_GATEWAY_CLIENT_SECRET: { type: 'string', default: '', secret: true },
  IDP_FRONTEND_REDIRECT_URIS: {
    type: 'json-string-list',
    default: [
      'http://localhost:3000/*',
      'http://127.0.0.1:3000/*',
      'http://localhost:8080/*',
      'http://127.0.0.1:8080/*',
    ],
  },
  /** People who can sign in, as `username:password` entries (development only). */
  IDP_USERS: { type: 'json-string-list', default: ['alice:alice', 'bob:bob'], secret: true },
  /** Trust X-Forwarded-* headers (set when the IdP sits behind the gateway's /auth proxy). */
  IDP_TRUST_PROXY: { type: 'bool', default: false },
} as const satisfies Record<string, VarSpec>;

export interface IdpUser {
  username: string;
  password: string;
}

export interface IdpConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Browser-facing base (scheme://host[:port]); undefined: `http://<host>:<bound port>`. */
  publicUrl: string | undefined;
  basePath: string;
  realm: string;
  stateDir: string;
  accessTokenTtlSeconds: number;
  keyGraceSeconds: number;
  /** Undefined: read or generate `<stateDir>/gateway-client-secret`. */
  gatewayClientSecret: string | undefined;
  frontendRedirectUris: string[];
  users: IdpUser[];
  trustProxy: boolean;
}

export const defaultIdpConfig: Omit<IdpConfig, 'stateDir'> = {
  host: '127.0.0.1',
  port: 0,
  publicUrl: undefined,
  basePath: '',
  realm: 'service',
  accessTokenTtlSeconds: 300,
  keyGraceSeconds: 3600,
  gatewayClientSecret: undefined,
  frontendRedirectUris: defaultsOf('IDP_FRONTEND_REDIRECT_URIS'),
  users: [
    { username: 'alice', password: 'alice' },
    { username: 'bob', password: 'bob' },
  ],
  trustProxy: false,
};

function defaultsOf(name: 'IDP_FRONTEND_REDIRECT_URIS'): string[] {
  return [...idpVars[name].default];
}

function normalisePath(name: string, value: string): string {
  if (value === '' || value === '/') return '';
  if (!value.startsWith('/')) throw new ConfigError(name, `must start with "/", got ${JSON.stringify(value)}`);
  return value.replace(/\/+$/, '');
}

export function idpConfigFromEnv(env: Record<string, string | undefined> = process.env): IdpConfig {
  const c = loadConfig(idpVars, env);
  if (!/^[A-Za-z0-9_-]+$/.test(c.KEYCLOAK_REALM)) {
    throw new ConfigError(
      'KEYCLOAK_REALM',
      `must be letters, digits, "-" or "_", got ${JSON.stringify(c.KEYCLOAK_REALM)}`,
    );
  }
  let publicUrl: string | undefined;
  if (c.IDP_PUBLIC_URL !== '') {
    try {
      const u = new URL(c.IDP_PUBLIC_URL);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
      publicUrl = u.origin;
    } catch {
      throw new ConfigError('IDP_PUBLIC_URL', `must be an http(s) origin, got ${JSON.stringify(c.IDP_PUBLIC_URL)}`);
    }
  }
  const users = c.IDP_USERS.map((entry) => {
    const i = entry.indexOf(':');
    if (i <= 0 || i === entry.length - 1) throw new ConfigError('IDP_USERS', 'entries must be "username:password"');
    return { username: entry.slice(0, i), password: entry.slice(i + 1) };
  });
  for (const uri of c.IDP_FRONTEND_REDIRECT_URIS) {
    if (!URL.canParse(uri)) throw new ConfigError('IDP_FRONTEND_REDIRECT_URIS', `not a URL: ${JSON.stringify(uri)}`);
  }
  return {
    host: c.IDP_BIND,
    port: c.IDP_PORT,
    publicUrl,
    basePath: normalisePath('IDP_BASE_PATH', c.IDP_BASE_PATH),
    realm: c.KEYCLOAK_REALM,
    stateDir: isAbsolute(c.IDP_STATE_DIR) ? c.IDP_STATE_DIR : resolve(repoRoot, c.IDP_STATE_DIR),
    accessTokenTtlSeconds: c.IDP_ACCESS_TOKEN_TTL_SECONDS,
    keyGraceSeconds: c.IDP_KEY_GRACE_SECONDS,
    gatewayClientSecret: c.KC_GATEWAY_CLIENT_SECRET === '' ? undefined : c.KC_GATEWAY_CLIENT_SECRET,
    frontendRedirectUris: c.IDP_FRONTEND_REDIRECT_URIS,
    users,
    trustProxy: c.IDP_TRUST_PROXY,
  };
}

/** `<publicUrl><basePath>/realms/<realm>`: the issuer, as Keycloak forms it. */
export function issuerFor(publicUrl: string, basePath: string, realm: string): string {
  return `${publicUrl}${basePath}/realms/${realm}`;
}
