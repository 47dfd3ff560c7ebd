/**
 * The identity-provider stand-in: a real OpenID provider (oidc-provider) served at `<base>/realms/<realm>` with
 * Keycloak's paths. Signing keys live in the state folder; the server watches `keys.json` and rebuilds its provider
 * when the key set changes (after `cli.ts rotate`) and again when a retired key's grace period ends.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { watch, type FSWatcher } from 'node:fs';
import type Provider from 'oidc-provider';
import { createLogger, type Logger } from '../../lib/log.ts';
import { MemoryStore } from './adapter.ts';
import { defaultIdpConfig, issuerFor, type IdpConfig } from './config.ts';
import { KEYS_FILE, currentKey, loadKeys, nextExpiry, persistedSecret, signingOrder, type KeyFile } from './keys.ts';
import { buildProvider, KEYCLOAK_ROUTES } from './provider.ts';
import { handleLogin } from './login.ts';
import { handleUserinfo } from './userinfo.ts';

export const GATEWAY_SECRET_FILE = 'gateway-client-secret';
const COOKIE_KEY_FILE = 'cookie-key';

export interface Idp {
  /** `<publicUrl><basePath>/realms/<realm>`; also the `iss` of every token. */
  issuer: string;
  discoveryUrl: string;
  jwksUrl: string;
  tokenUrl: string;
  authorizationUrl: string;
  /** Where the server listens (`http://host:port`); equals the public base unless IDP_PUBLIC_URL says otherwise. */
  listenUrl: string;
  /** The `service-gateway` client secret in force (from config or the state folder). Never log it. */
  gatewayClientSecret: string;
  /** Key ids currently published in the JWKS, the signing key first. */
  kids(): string[];
  /** Re-reads keys.json now (the file watcher does this by itself); resolves with the published key ids. */
  reloadKeys(): string[];
  close(): Promise<void>;
}

export type IdpOptions = Partial<IdpConfig> & Pick<IdpConfig, 'stateDir'>;

function sameKids(a: KeyFile, b: KeyFile): boolean {
  const ka = signingOrder(a).map((k) => k.kid);
  const kb = signingOrder(b).map((k) => k.kid);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The signing keys in force and the provider built on them: rebuilt when keys.json names other keys (after
 * `cli.ts rotate`) and when a retired key's grace period ends.
 */
class KeyedProvider {
  private keyFile: KeyFile;
  private provider: Provider | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  /** The provider's request handler (set by build()). */
  callback: ((req: IncomingMessage, res: ServerResponse) => unknown) | undefined;

  constructor(
    private readonly config: IdpConfig,
    private readonly settings: Omit<Parameters<typeof buildProvider>[0], 'issuer' | 'keys'>,
    private readonly logger: Logger,
  ) {
    this.keyFile = loadKeys(config.stateDir);
  }

  get current(): Provider {
    if (!this.provider) throw new Error('the identity provider is not built yet');
    return this.provider;
  }

  kids(): string[] {
    return signingOrder(this.keyFile).map((k) => k.kid);
  }

  /** The published key set (public parts only), as Keycloak's certs endpoint serves it. */
  jwks() {
    return {
      keys: signingOrder(this.keyFile).map(({ jwk }) => ({
        kty: jwk.kty,
        kid: jwk.kid,
        alg: jwk.alg,
        use: jwk.use,
        n: jwk.n,
        e: jwk.e,
      })),
    };
  }

  build(issuer: string): void {
    const provider = buildProvider({ ...this.settings, issuer, keys: signingOrder(this.keyFile) });
    const logger = this.logger;
    provider.on('server_error', (_ctx, err) => logger.error('idp_server_error', { err }));
    provider.on('grant.success', (ctx) => logger.info('idp_token_issued', { client_id: ctx.oidc.client?.clientId }));
    provider.on('grant.error', (ctx, err) =>
      logger.info('idp_token_refused', { client_id: ctx.oidc.client?.clientId, error: err.message }),
    );
    this.provider = provider;
    this.callback = provider.callback();
    this.scheduleExpiry(issuer);
  }

  private scheduleExpiry(issuer: string): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    const at = nextExpiry(this.keyFile);
    if (at === undefined) return;
    // setTimeout takes at most ~24.8 days; re-check then if the grace period is longer.
    const delay = Math.min(Math.max(0, at - Date.now()) + 20, 2 ** 31 - 1);
    this.expiryTimer = setTimeout(() => this.reload(issuer, 'grace_period_ended'), delay);
    this.expiryTimer.unref();
  }

  /** Re-reads keys.json; rebuilds when the key set changed or a grace period ended. Returns the published ids. */
  reload(issuer: string, reason: string): string[] {
    try {
      const next = loadKeys(this.config.stateDir);
      if (!sameKids(next, this.keyFile) || reason === 'grace_period_ended') {
        this.keyFile = next;
        this.build(issuer);
        this.logger.info('idp_keys_reloaded', { reason, signing_kid: currentKey(this.keyFile).kid, kids: this.kids() });
      }
    } catch (err) {
      this.logger.error('idp_keys_reload_failed', { err, reason });
    }
    return this.kids();
  }

  close(): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
  }
}

/** Health, the login pages, userinfo, then the provider mounted at the realm's path; 404 outside it. */
function idpHandler(
  config: IdpConfig,
  mountPath: string,
  keys: KeyedProvider,
  issuer: () => string,
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse) => void {
  const failed = (event: string, res: ServerResponse) => (err: unknown) => {
    logger.error(event, { err });
    if (!res.headersSent) sendJson(res, 500, { error: 'server_error' });
  };
  return (req, res) => {
    const url = req.url ?? '/';
    const path = url.split('?')[0] ?? '/';
    if (path === '/health' || path === `${config.basePath}/health`) {
      return sendJson(res, 200, { status: 'ok', realm: config.realm, issuer: issuer() });
    }
    if (path !== mountPath && !path.startsWith(`${mountPath}/`)) {
      return sendJson(res, 404, { error: 'Unable to find matching target resource method' });
    }
    const rest = url.slice(mountPath.length) || '/';
    if (rest.startsWith('/login-actions/')) {
      const login = {
        provider: keys.current,
        realm: config.realm,
        mountPath,
        users: config.users,
        onLogin: (username: string) => logger.info('idp_login', { username }),
      };
      const action = rest.slice('/login-actions'.length).split('?')[0] ?? '';
      handleLogin(login, action, req, res).catch(failed('idp_login_failed', res));
      return;
    }
    if (rest.split('?')[0] === KEYCLOAK_ROUTES.userinfo) {
      const ctx = { issuer: issuer(), realm: config.realm, jwks: () => keys.jwks(), users: config.users };
      handleUserinfo(ctx, req, res).catch(failed('idp_userinfo_failed', res));
      return;
    }
    // Mount the provider at `mountPath` the way Express does: originalUrl keeps the prefix, url drops it.
    (req as IncomingMessage & { originalUrl?: string }).originalUrl = url;
    req.url = rest;
    keys.callback?.(req, res);
  };
}

function listenOn(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function startIdp(options: IdpOptions, logger: Logger = createLogger('idp')): Promise<Idp> {
  const config: IdpConfig = { ...defaultIdpConfig, ...options };
  const mountPath = `${config.basePath}/realms/${config.realm}`;
  const gatewayClientSecret = config.gatewayClientSecret ?? persistedSecret(config.stateDir, GATEWAY_SECRET_FILE);
  const keys = new KeyedProvider(
    config,
    {
      realm: config.realm,
      mountPath,
      cookieKey: persistedSecret(config.stateDir, COOKIE_KEY_FILE),
      store: new MemoryStore(),
      users: config.users,
      gatewayClientSecret,
      frontendRedirectUris: config.frontendRedirectUris,
      accessTokenTtlSeconds: config.accessTokenTtlSeconds,
      trustProxy: config.trustProxy,
    },
    logger,
  );
  let issuer = '';
  const server: Server = createServer(idpHandler(config, mountPath, keys, () => issuer, logger));
  const addr = await listenOn(server, config.port, config.host);
  const listenUrl = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
  issuer = issuerFor(config.publicUrl ?? listenUrl, config.basePath, config.realm);
  keys.build(issuer);

  let debounce: NodeJS.Timeout | undefined;
  const watcher: FSWatcher = watch(config.stateDir, (_event, filename) => {
    if (filename !== KEYS_FILE) return;
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => keys.reload(issuer, 'keys_file_changed'), 50);
  });

  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    jwksUrl: `${issuer}${KEYCLOAK_ROUTES.jwks}`,
    tokenUrl: `${issuer}${KEYCLOAK_ROUTES.token}`,
    authorizationUrl: `${issuer}${KEYCLOAK_ROUTES.authorization}`,
    listenUrl,
    gatewayClientSecret,
    kids: () => keys.kids(),
    reloadKeys: () => keys.reload(issuer, 'requested'),
    close: async () => {
      watcher.close();
      if (debounce) clearTimeout(debounce);
      keys.close();
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
