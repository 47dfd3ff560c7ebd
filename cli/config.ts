/**
 * Profiles: where the CLI talks to and how it gets a token. One JSON file, $XDG_CONFIG_HOME/ckg/config.json (else
 * ~/.config/ckg/config.json), written with mode 0600 in a 0700 folder because it holds secrets (a client secret,
 * a token). Secrets are never printed: `profile list` shows only which kind of credential a profile has.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, EXIT } from './exit.ts';

export interface Profile {
  url: string;
  realm?: string;
  /** A bearer token given at login (used as is until it expires). */
  token?: string;
  /** Client credentials: a token is fetched (and cached below) when needed. */
  client_id?: string;
  client_secret?: string;
  access_token?: string;
  /** Milliseconds since the epoch when access_token expires. */
  expires_at?: number;
}

export interface ConfigFile {
  current?: string;
  profiles: Record<string, Profile>;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'ckg', 'config.json');
}

export function readConfig(path = configPath()): ConfigFile {
  if (!existsSync(path)) return { profiles: {} };
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as ConfigFile;
    return { current: parsed.current, profiles: parsed.profiles ?? {} };
  } catch (err) {
    throw new CliError(`${path}: not valid JSON (${(err as Error).message}); fix or remove it`, EXIT.USAGE);
  }
}

export function writeConfig(config: ConfigFile, path = configPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/** The profile name in use: --profile, else CKG_PROFILE, else the current one, else `default`. */
export function profileName(config: ConfigFile, flag: string | undefined): string {
  return flag ?? process.env.CKG_PROFILE ?? config.current ?? 'default';
}
