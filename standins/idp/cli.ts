/**
 * Commands of the IdP stand-in (same environment variables as the server; see docs/standins.md):
 *
 *   node --import tsx standins/idp/cli.ts token --user alice [--ttl 300] [--issuer URL]
 *       Prints an access token for a person, signed with the realm's current key (read from the state folder).
 *       The token is minted directly, not fetched from the server: it needs no running IdP and no password, and it
 *       carries the same claims as a token from the browser flow (azp service-frontend). The issuer is the one the
 *       server would use: IDP_PUBLIC_URL (or http://IDP_BIND:IDP_PORT) + IDP_BASE_PATH + /realms/KEYCLOAK_REALM.
 *   node --import tsx standins/idp/cli.ts rotate [--grace SECONDS]
 *       Adds a new signing key; the previous one stays in the JWKS for the grace period (IDP_KEY_GRACE_SECONDS).
 *       A running server picks the change up by itself.
 *   node --import tsx standins/idp/cli.ts keys
 *       Lists the key ids with their state, as JSON.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { idpConfigFromEnv } from './config.ts';
import { loadKeys, rotateKeys } from './keys.ts';
import { mintPersonToken } from './token.ts';

const USAGE = `usage:
  cli.ts token --user NAME [--ttl SECONDS] [--issuer URL]
  cli.ts rotate [--grace SECONDS]
  cli.ts keys`;

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got ${value}`);
  return n;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      user: { type: 'string' },
      ttl: { type: 'string' },
      issuer: { type: 'string' },
      grace: { type: 'string' },
    },
    strict: true,
  });
  const config = idpConfigFromEnv();
  switch (command) {
    case 'token': {
      if (!values.user) throw new Error(`--user is required\n${USAGE}`);
      const ttl = positiveInt('ttl', values.ttl);
      const token = await mintPersonToken(config, values.user, {
        ...(ttl === undefined ? {} : { ttlSeconds: ttl }),
        ...(values.issuer === undefined ? {} : { issuer: values.issuer }),
      });
      process.stdout.write(token + '\n');
      return 0;
    }
    case 'rotate': {
      const grace = positiveInt('grace', values.grace) ?? config.keyGraceSeconds;
      const { current, retired } = rotateKeys(config.stateDir, grace);
      process.stdout.write(
        JSON.stringify({
          event: 'idp_key_rotated',
          signing_kid: current.kid,
          retired: retired.map((k) => ({ kid: k.kid, expires_at: k.expiresAt })),
        }) + '\n',
      );
      return 0;
    }
    case 'keys': {
      const file = loadKeys(config.stateDir);
      const rows = file.keys.map((k) => ({
        kid: k.kid,
        state: k.retiredAt === null ? 'signing' : 'retired',
        created_at: k.createdAt,
        expires_at: k.expiresAt,
      }));
      process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      return 0;
    }
    default:
      process.stderr.write(USAGE + '\n');
      return 2;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
