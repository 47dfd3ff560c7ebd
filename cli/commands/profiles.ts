/** login, logout, profile list / use. Secrets go into the config file (0600) and are never printed. */
import type { Command } from 'commander';
import { configPath, profileName, readConfig, writeConfig, type Profile } from '../config.ts';
import { CliError, EXIT } from '../exit.ts';
import { note, print, printJson, table } from '../output.ts';
import { DEFAULT_REALM, fetchClientToken, openSession, type GlobalOptions } from '../session.ts';

interface LoginOptions extends GlobalOptions {
  clientId?: string;
  clientSecret?: string;
  realm: string;
}

export function registerProfiles(program: Command): void {
  program
    .command('login')
    .description(
      'save a profile: the gateway URL and a token (--token / CKG_TOKEN) or client credentials ' +
        '(--client-id with --client-secret / CKG_CLIENT_SECRET); checks them against the service',
    )
    .option('--client-id <id>', 'OIDC client id (client credentials grant)')
    .option('--client-secret <secret>', 'its secret (better: the CKG_CLIENT_SECRET environment variable)')
    .option('--realm <realm>', 'identity provider realm', DEFAULT_REALM)
    .action(async (_o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<LoginOptions>();
      const path = configPath();
      const config = readConfig(path);
      const name = profileName(config, o.profile);
      const url = (o.url ?? process.env.CKG_URL ?? config.profiles[name]?.url)?.replace(/\/+$/, '');
      if (!url) throw new CliError('login needs --url <gateway address> (or CKG_URL)', EXIT.USAGE);
      try {
        new URL(url);
      } catch {
        throw new CliError(`--url: ${url} is not a URL`, EXIT.USAGE);
      }
      const token = o.token ?? process.env.CKG_TOKEN;
      const secret = o.clientSecret ?? process.env.CKG_CLIENT_SECRET;
      let profile: Profile;
      if (o.clientId) {
        if (!secret) throw new CliError('--client-id needs --client-secret or CKG_CLIENT_SECRET', EXIT.USAGE);
        const got = await fetchClientToken(url, o.realm, o.clientId, secret, 30_000);
        profile = {
          url,
          realm: o.realm,
          client_id: o.clientId,
          client_secret: secret,
          access_token: got.access_token,
          expires_at: Date.now() + got.expires_in * 1000,
        };
      } else if (token) {
        profile = { url, token };
      } else {
        throw new CliError('login needs --token (or CKG_TOKEN) or --client-id with a secret', EXIT.USAGE);
      }
      // Check the credentials against the service before saving them.
      const check = openSession({ url, token: profile.token ?? profile.access_token, timeout: o.timeout });
      await check.api.call('GET', '/api/sources', { query: { limit: 1 } });
      config.profiles[name] = profile;
      config.current = name;
      writeConfig(config, path);
      if (o.json) printJson({ profile: name, url, auth: profile.client_id ? 'client_credentials' : 'token' });
      else note(`logged in: profile "${name}" → ${url} (saved in ${path})`);
    });

  program
    .command('logout')
    .description('remove the profile (and its secrets) from the config file')
    .action((_o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions>();
      const config = readConfig();
      const name = profileName(config, o.profile);
      if (!config.profiles[name]) throw new CliError(`no profile "${name}"`, EXIT.NOT_FOUND);
      delete config.profiles[name];
      if (config.current === name) delete config.current;
      writeConfig(config);
      note(`removed profile "${name}"`);
    });

  const profile = program.command('profile').description('list profiles or choose the current one');
  profile
    .command('list')
    .description('the saved profiles (secrets are not shown)')
    .action((_o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions>();
      const config = readConfig();
      const rows = Object.entries(config.profiles).map(([name, p]) => ({
        current: name === config.current ? '*' : '',
        name,
        url: p.url,
        auth: p.client_id ? `client_credentials (${p.client_id})` : p.token ? 'token' : 'none',
      }));
      if (o.json) return printJson(rows);
      print(
        table(rows, [
          { key: 'current', header: '' },
          { key: 'name', header: 'NAME' },
          { key: 'url', header: 'URL' },
          { key: 'auth', header: 'AUTH' },
        ]),
      );
    });
  profile
    .command('use')
    .argument('<name>')
    .description('make a profile the current one')
    .action((name: string) => {
      const config = readConfig();
      if (!config.profiles[name]) throw new CliError(`no profile "${name}" (ckg profile list)`, EXIT.NOT_FOUND);
      config.current = name;
      writeConfig(config);
      note(`current profile: ${name}`);
    });
}
