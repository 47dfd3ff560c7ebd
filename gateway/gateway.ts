/**
 * createGateway(config): the whole gateway in-process (tests run it on port 0 over real HTTP; main.ts runs it on
 * 8080). Returns the server, its URL, the event hub (operators and tests read its listener pid) and close().
 */
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { createHttpServer } from '../lib/http.ts';
import { createLogger, type Logger } from '../lib/log.ts';
import { startOpsServer, type OpsServer } from '../lib/ops-routes.ts';
import { instrumentPool } from '../lib/pool-metrics.ts';
import { createReadiness, databaseCheck, httpCheck, type ReadyCheck } from '../lib/readiness.ts';
import { buildApp } from './app.ts';
import { createAuthenticator } from './auth/middleware.ts';
import { KeySet } from './auth/key-set.ts';
import { createVerifier, stubAdminClaims } from './auth/verify.ts';
import { expectedIssuer, idpBase, jwksUrl, type GatewayConfig } from './config.ts';
import { gatewayDocument } from './docs/gateway-openapi.ts';
import { createOpenApi } from './docs/openapi.ts';
import { createDocsUi } from './docs/ui.ts';
import { EventHub } from './events/hub.ts';
import { createExplorer } from './explorer.ts';
import { createEventsPool } from './events/store.ts';
import { createEventsHandler } from './events/stream.ts';
import { createAgents } from './proxy/agents.ts';
import { createForward } from './proxy/forward.ts';
import { createMcpHandler } from './mcp.ts';

export interface GatewayDeps {
  log?: Logger;
  /** Milliseconds since the epoch, for token and key-set ages. */
  now?: () => number;
}

export interface Gateway {
  server: http.Server;
  url: string;
  hub: EventHub;
  keys: KeySet | undefined;
  /** The operators' port: /metrics, /ready, /health. */
  ops: OpsServer;
  close(): Promise<void>;
}

/** The identity provider's public browser client (spec part 5.6). */
const FRONTEND_CLIENT_ID = 'service-frontend';

const trimSlash = (u: string) => u.replace(/\/+$/, '');

export async function createGateway(config: GatewayConfig, deps: GatewayDeps = {}): Promise<Gateway> {
  const log = deps.log ?? createLogger('gateway');
  const issuer = expectedIssuer(config);

  let keys: KeySet | undefined;
  let auth;
  if (config.AUTH_DISABLED) {
    log.warning('auth_disabled', {
      message:
        'AUTH_DISABLED IS SET: TOKENS ARE NOT CHECKED AND EVERY REQUEST GETS STUB ADMIN CLAIMS. ' +
        'DEVELOPMENT ONLY, NEVER IN PRODUCTION.',
    });
    auth = createAuthenticator('disabled', stubAdminClaims(), log);
  } else {
    keys = new KeySet({
      url: jwksUrl(config),
      ttlMs: config.JWKS_CACHE_SECONDS * 1000,
      unknownKidIntervalMs: config.JWKS_UNKNOWN_KID_REFRESH_SECONDS * 1000,
      log,
      ...(deps.now ? { now: deps.now } : {}),
    });
    auth = createAuthenticator(createVerifier(keys, issuer, deps.now ? { now: deps.now } : {}), stubAdminClaims(), log);
    void keys.warm();
  }

  const pool = createEventsPool(config.DATABASE_URL, config.EVENTS_POOL_SIZE);
  pool.on('error', (err) => log.warning('db_idle_client_error', { error: err }));
  instrumentPool(pool, 'ckg-gateway-events');
  const hub = new EventHub({
    databaseUrl: config.DATABASE_URL,
    pool,
    log,
    heartbeatMs: config.SSE_HEARTBEAT_SECONDS * 1000,
    gapWaitMs: config.SSE_GAP_WAIT_MS,
  });
  hub.start();
  const events = createEventsHandler({
    hub,
    pool,
    log,
    bufferBytes: config.SSE_CLIENT_BUFFER_BYTES,
    stallMs: config.SSE_CLIENT_STALL_SECONDS * 1000,
    ...(deps.now ? { now: deps.now } : {}),
  });

  const agents = createAgents({
    maxSockets: config.UPSTREAM_MAX_CONNECTIONS,
    maxFreeSockets: config.UPSTREAM_MAX_IDLE_CONNECTIONS,
    keepAliveMs: config.UPSTREAM_KEEPALIVE_SECONDS * 1000,
  });
  const bodyLimits = { timeoutMs: config.BODY_TIMEOUT_SECONDS * 1000, maxBytes: config.MAX_BODY_BYTES };
  const forward = createForward({
    agents,
    timeoutMs: config.UPSTREAM_TIMEOUT_SECONDS * 1000,
    attempts: config.UPSTREAM_RETRY_ATTEMPTS,
    retryBaseMs: config.UPSTREAM_RETRY_BASE_MS,
    trustForwarded: config.TRUST_FORWARDED_HEADERS,
    body: bodyLimits,
    log,
  });
  const upstreams = {
    graph: { name: 'graph', base: new URL(config.GRAPH_SERVICE_URL) },
    ingestion: { name: 'ingestion', base: new URL(config.INGESTION_SERVICE_URL) },
    idp: { name: 'idp', base: new URL(idpBase(config)) },
  };
  const openapi = createOpenApi({
    base: gatewayDocument(issuer),
    sources: [
      { name: 'graph', destination: 'graph', url: `${trimSlash(config.GRAPH_SERVICE_URL)}/openapi.json` },
      { name: 'ingestion', destination: 'ingestion', url: `${trimSlash(config.INGESTION_SERVICE_URL)}/openapi.json` },
    ],
    ttlMs: config.OPENAPI_CACHE_SECONDS * 1000,
    log,
    ...(deps.now ? { now: deps.now } : {}),
  });
  void openapi.document();

  const app = buildApp({
    log,
    corsOrigins: config.CORS_ORIGINS,
    auth,
    forward,
    upstreams,
    realm: config.KEYCLOAK_REALM,
    events,
    mcp: createMcpHandler({
      upstreams,
      timeoutMs: config.UPSTREAM_TIMEOUT_SECONDS * 1000,
      maxInFlight: config.UPSTREAM_MAX_CONNECTIONS,
      body: bodyLimits,
      log,
    }),
    openapi,
    docsUi: createDocsUi({ oidcClientId: FRONTEND_CLIENT_ID }),
    explorer: createExplorer({ authority: issuer, clientId: FRONTEND_CLIENT_ID }),
  });
  const upstreamHealth = (base: string) => httpCheck(`${trimSlash(base)}/health`);
  const required: Record<string, ReadyCheck> = {
    database: databaseCheck(pool),
    event_stream: () =>
      hub.ready ? Promise.resolve() : Promise.reject(new Error('the event listener has not connected yet')),
    graph: upstreamHealth(config.GRAPH_SERVICE_URL),
    ingestion: upstreamHealth(config.INGESTION_SERVICE_URL),
  };
  // Tokens can be checked once a key set is loaded; after that an identity-provider outage does not stop the gateway.
  if (keys) required.identity_provider = () => keys.ensureLoaded();
  const ops = await startOpsServer(config.METRICS_PORT, config.METRICS_HOST, createReadiness(required));

  const handle = app.callback();
  // Node's own request deadline stays behind the gateway's body deadline (which answers first, through the app).
  const server = createHttpServer((req, res) => void handle(req, res), {
    requestTimeoutMs: bodyLimits.timeoutMs + 5000,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.APP_PORT, config.APP_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (err: unknown) => {
    await ops.close();
    throw err;
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.APP_HOST === '0.0.0.0' || config.APP_HOST === '::' ? '127.0.0.1' : config.APP_HOST;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log.info('gateway_started', {
    url,
    port,
    metrics_port: ops.port,
    graph: config.GRAPH_SERVICE_URL,
    ingestion: config.INGESTION_SERVICE_URL,
    identity_provider: config.KEYCLOAK_URL,
    issuer,
    auth_disabled: config.AUTH_DISABLED,
    cors_origins: config.CORS_ORIGINS,
  });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      events.closeAll();
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), 5000);
      await closed;
      clearTimeout(force);
      await hub.close();
      await pool.end();
      agents.destroy();
      await ops.close();
      log.info('gateway_stopped', { url });
    })());
  return { server, url, hub, keys, ops, close };
}
