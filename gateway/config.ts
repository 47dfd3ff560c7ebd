/**
 * The gateway's environment, validated once at start-up (the error names the bad variable).
 */
import { databaseVars, loadConfig, type ConfigOf, type VarSpec } from '../lib/config.ts';

export const gatewayVars = {
  APP_PORT: { type: 'int', default: 8080, min: 0, max: 65535 },
  APP_HOST: { type: 'string', default: '0.0.0.0' },
  /** /metrics, /ready and /health for operators, on a port of their own: the public port serves none of them but
   * /health (docs/deployment.md). */
  METRICS_PORT: { type: 'int', default: 8090, min: 0, max: 65535 },
  METRICS_HOST: { type: 'string', default: '0.0.0.0' },
  KEYCLOAK_URL: { type: 'url', default: 'http://127.0.0.1:8180' },
  KEYCLOAK_REALM: { type: 'string', default: 'service' },
  KEYCLOAK_ISSUER: { type: 'string', default: '' },
  KC_GATEWAY_CLIENT_SECRET: { type: 'string', default: '', secret: true },
  GRAPH_SERVICE_URL: { type: 'url', default: 'http://127.0.0.1:8082' },
  INGESTION_SERVICE_URL: { type: 'url', default: 'http://127.0.0.1:8081' },
  DATABASE_URL: databaseVars.DATABASE_URL,
  AUTH_DISABLED: { type: 'bool', default: false },
  CORS_ORIGINS: { type: 'json-string-list', default: [] },
  /** The gateway sits behind a proxy of ours: keep the caller's X-Forwarded-Host/Proto/For (extended). */
  TRUST_FORWARDED_HEADERS: { type: 'bool', default: false },
  /** Key-set cache lifetime (spec: 5 minutes). */
  JWKS_CACHE_SECONDS: { type: 'number', default: 300, min: 0 },
  /** At most one refresh for an unknown kid per this interval. */
  JWKS_UNKNOWN_KID_REFRESH_SECONDS: { type: 'number', default: 30, min: 0 },
  /** Limit on the time to receive an upstream's response headers, and on silence while its body streams. */
  UPSTREAM_TIMEOUT_SECONDS: { type: 'number', default: 120, min: 0.001 },
  UPSTREAM_MAX_CONNECTIONS: { type: 'int', default: 100, min: 1, max: 10000 },
  UPSTREAM_MAX_IDLE_CONNECTIONS: { type: 'int', default: 20, min: 0, max: 10000 },
  UPSTREAM_KEEPALIVE_SECONDS: { type: 'number', default: 2, min: 0.001 },
  UPSTREAM_RETRY_ATTEMPTS: { type: 'int', default: 3, min: 1, max: 10 },
  UPSTREAM_RETRY_BASE_MS: { type: 'int', default: 100, min: 0, max: 60000 },
  /**
   * A request's body must arrive whole within this many seconds (408 and the connection closed otherwise) and be at
   * most MAX_BODY_BYTES (413); only then is an upstream connection taken (gateway/proxy/body.ts, docs/security.md).
   */
  BODY_TIMEOUT_SECONDS: { type: 'number', default: 10, min: 0.1, max: 600 },
  MAX_BODY_BYTES: { type: 'int', default: 6 * 1024 * 1024, min: 1024, max: 1024 * 1024 * 1024 },
  /** How long the merged OpenAPI document is reused before the components are asked again. */
  OPENAPI_CACHE_SECONDS: { type: 'number', default: 30, min: 0 },
  SSE_HEARTBEAT_SECONDS: { type: 'number', default: 15, min: 0.01 },
  /** A live client with more unsent bytes than this is caught up from the table once its socket drains. */
  SSE_CLIENT_BUFFER_BYTES: { type: 'int', default: 1_048_576, min: 65_536 },
  /** A lagging client whose socket does not drain within this is dropped (it resumes with Last-Event-ID). */
  SSE_CLIENT_STALL_SECONDS: { type: 'number', default: 30, min: 0.01 },
  /** How long later event ids wait for a missing lower id (a transaction that committed late) before moving on. */
  SSE_GAP_WAIT_MS: { type: 'int', default: 1000, min: 0, max: 600000 },
  EVENTS_POOL_SIZE: { type: 'int', default: 5, min: 1, max: 100 },
} as const satisfies Record<string, VarSpec>;

export type GatewayConfig = ConfigOf<typeof gatewayVars>;

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return loadConfig(gatewayVars, env);
}

/** KEYCLOAK_URL without a trailing slash. */
export function idpBase(config: Pick<GatewayConfig, 'KEYCLOAK_URL'>): string {
  return config.KEYCLOAK_URL.replace(/\/+$/, '');
}

/** The issuer every token must carry: KEYCLOAK_ISSUER, else KEYCLOAK_URL + /realms/<realm>. */
export function expectedIssuer(
  config: Pick<GatewayConfig, 'KEYCLOAK_URL' | 'KEYCLOAK_REALM' | 'KEYCLOAK_ISSUER'>,
): string {
  if (config.KEYCLOAK_ISSUER !== '') return config.KEYCLOAK_ISSUER;
  return `${idpBase(config)}/realms/${config.KEYCLOAK_REALM}`;
}

export function jwksUrl(config: Pick<GatewayConfig, 'KEYCLOAK_URL' | 'KEYCLOAK_REALM'>): string {
  return `${idpBase(config)}/realms/${encodeURIComponent(config.KEYCLOAK_REALM)}/protocol/openid-connect/certs`;
}
