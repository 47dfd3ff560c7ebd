/**
 * Entry point: `node --import tsx standins/idp/main.ts`. Configuration from the environment (see docs/standins.md);
 * logs `idp_started` with the issuer and endpoint URLs; SIGHUP re-reads the key file; SIGTERM/SIGINT stop cleanly.
 */
import { join } from 'node:path';
import { createLogger } from '../../lib/log.ts';
import { runMain } from '../../lib/main.ts';
import { idpConfigFromEnv } from './config.ts';
import { GATEWAY_SECRET_FILE, startIdp } from './server.ts';

const logger = createLogger('idp');

runMain({
  name: 'idp',
  log: logger,
  start: async () => {
    const config = idpConfigFromEnv();
    const idp = await startIdp(config, logger);
    // Field names avoid token/secret: lib/log.ts redacts keys containing them.
    logger.info('idp_started', {
      url: idp.issuer,
      issuer: idp.issuer,
      listen_url: idp.listenUrl,
      discovery_url: idp.discoveryUrl,
      jwks_url: idp.jwksUrl,
      realm: config.realm,
      state_dir: config.stateDir,
      signing_kid: idp.kids()[0],
      access_ttl_seconds: config.accessTokenTtlSeconds,
      users: config.users.map((u) => u.username),
      gateway_client: {
        id: 'service-gateway',
        credentials_from:
          config.gatewayClientSecret === undefined
            ? `file ${join(config.stateDir, GATEWAY_SECRET_FILE)}`
            : 'KC_GATEWAY_CLIENT_SECRET',
      },
    });
    process.on('SIGHUP', () => idp.reloadKeys());
    return idp;
  },
});
