/**
 * The oidc-provider configuration that makes it look like a Keycloak realm: Keycloak's endpoint paths, the two
 * clients of spec part 5.6, RS256 JWT access tokens with Keycloak's claims, PKCE S256 for the public client.
 */
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { MemoryStore } from './adapter.ts';
import {
  AUDIENCE,
  FRONTEND_CLIENT_ID,
  GATEWAY_CLIENT_ID,
  personClaims,
  personSubject,
  serviceAccountClaims,
} from './claims.ts';
import type { IdpUser } from './config.ts';
import type { StoredKey } from './keys.ts';

/** The one resource server the realm issues access tokens for (oidc-provider needs one to issue JWTs). */
export const API_RESOURCE = 'urn:service:api';

/** Keycloak's endpoint paths below `/realms/<realm>`. */
export const KEYCLOAK_ROUTES = {
  authorization: '/protocol/openid-connect/auth',
  token: '/protocol/openid-connect/token',
  jwks: '/protocol/openid-connect/certs',
  userinfo: '/protocol/openid-connect/userinfo',
  end_session: '/protocol/openid-connect/logout',
  introspection: '/protocol/openid-connect/token/introspect',
  revocation: '/protocol/openid-connect/revoke',
} as const;

export interface ProviderOptions {
  issuer: string;
  realm: string;
  /** `<basePath>/realms/<realm>`: where the provider is mounted. */
  mountPath: string;
  keys: readonly StoredKey[];
  cookieKey: string;
  store: MemoryStore;
  users: readonly IdpUser[];
  gatewayClientSecret: string;
  frontendRedirectUris: readonly string[];
  accessTokenTtlSeconds: number;
  trustProxy: boolean;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Keycloak-style redirect matching: an entry ending in `*` allows any URI that starts with the rest. */
function redirectAllowed(allowed: readonly string[], value: string): boolean {
  return allowed.some((a) => (a.endsWith('*') ? value.startsWith(a.slice(0, -1)) : a === value));
}

function originsOf(uris: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const u of uris) {
    try {
      out.add(new URL(u.replace(/\*$/, '')).origin);
    } catch {
      // not a URL: contributes no origin
    }
  }
  return out;
}

export function buildProvider(o: ProviderOptions): Provider {
  const bySubject = new Map(o.users.map((u) => [personSubject(o.realm, u.username), u]));
  const ttl = o.accessTokenTtlSeconds;
  const webOrigins = originsOf(o.frontendRedirectUris);

  const configuration: Configuration = {
    adapter: (name: string) => o.store.adapterFor(name),
    jwks: { keys: o.keys.map((k) => ({ ...k.jwk })) },
    cookies: { keys: [o.cookieKey] },
    routes: KEYCLOAK_ROUTES,
    clients: [
      {
        client_id: FRONTEND_CLIENT_ID,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [...o.frontendRedirectUris],
        post_logout_redirect_uris: [...o.frontendRedirectUris],
      },
      {
        client_id: GATEWAY_CLIENT_ID,
        client_secret: o.gatewayClientSecret,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
    ],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    scopes: ['openid', 'profile', 'email', 'offline_access'],
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'name', 'given_name'],
      email: ['email', 'email_verified'],
    },
    findAccount: (_ctx, sub) => {
      const user = bySubject.get(sub);
      if (!user) return undefined;
      return { accountId: sub, claims: () => ({ sub, ...personClaims(o.realm, user.username) }) };
    },
    interactions: { url: (_ctx, interaction) => `${o.mountPath}/login-actions/${interaction.uid}` },
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? API_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== API_RESOURCE) throw new errors.InvalidTarget();
          return {
            scope: 'profile email',
            audience: AUDIENCE,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    clientBasedCORS: (_ctx, origin) => webOrigins.has(origin),
    renderError: (ctx, out) => {
      ctx.type = 'html';
      const text = Object.values(out)
        .map((v) => escapeHtml(String(v)))
        .join(': ');
      ctx.body = `<!doctype html><html><head><meta charset="utf-8"><title>Error</title></head><body><h1>We are sorry...</h1><p id="kc-error-message">${text}</p></body></html>`;
    },
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      IdToken: ttl,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 10 * 3600,
      Grant: 10 * 3600,
      RefreshToken: 1800,
    },
    formats: {
      customizers: {
        jwt: (_ctx: KoaContextWithOIDC, token, parts) => {
          parts.header = { typ: 'JWT' };
          const p = parts.payload;
          p.typ = 'Bearer';
          p.azp = token.clientId;
          const accountId = 'accountId' in token ? token.accountId : undefined;
          const user = accountId === undefined ? undefined : bySubject.get(accountId);
          if (user) {
            Object.assign(p, personClaims(o.realm, user.username));
            if ('sessionUid' in token && token.sessionUid) p.sid = token.sessionUid;
            // oidc-provider puts only the resource's scopes here; Keycloak lists the OpenID scopes as well.
            const granted = typeof p.scope === 'string' ? p.scope.split(' ').filter(Boolean) : [];
            const scopes = new Set(['openid', ...granted]);
            p.scope = [...scopes].join(' ');
          } else if (token.clientId) {
            Object.assign(p, serviceAccountClaims(o.realm, token.clientId));
          }
        },
      },
    },
  };

  const provider = new Provider(o.issuer, configuration);
  provider.proxy = o.trustProxy;
  // Keycloak accepts redirect URIs with a trailing `*`; oidc-provider matches exactly unless told otherwise.
  const clientProto = provider.Client.prototype as {
    redirectUriAllowed(value: string): boolean;
    redirectUris?: string[];
  };
  clientProto.redirectUriAllowed = function (this: { redirectUris?: string[] }, value: string) {
    return redirectAllowed(this.redirectUris ?? [], value);
  };
  return provider;
}
