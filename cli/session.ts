/**
 * A command's connection to the service: the gateway URL and a token, from the profile, overridden by --url /
 * CKG_URL and --token / CKG_TOKEN. Client-credential profiles fetch a token from the identity provider through the
 * gateway's /auth proxy and cache it in the profile until a minute before it expires.
 */
import { createHttpApi, type Api } from '../lib/api/client.ts';
import { configPath, profileName, readConfig, writeConfig, type Profile } from './config.ts';
import { CliError, EXIT } from './exit.ts';

export interface GlobalOptions {
  profile?: string;
  url?: string;
  token?: string;
  json?: boolean;
  timeout?: string;
}

export interface Session {
  url: string;
  profile: string;
  /** A valid bearer token (fetched or refreshed when needed). */
  token(opts?: { refresh?: boolean }): Promise<string>;
  api: Api;
  timeoutMs: number;
}

export const DEFAULT_REALM = 'service';

/** Client credentials → an access token, from <gateway>/auth/realms/<realm>/protocol/openid-connect/token. */
export async function fetchClientToken(
  url: string,
  realm: string,
  clientId: string,
  secret: string,
  timeoutMs: number,
): Promise<{ access_token: string; expires_in: number }> {
  const endpoint = `${url.replace(/\/+$/, '')}/auth/realms/${encodeURIComponent(realm)}/protocol/openid-connect/token`;
  let res: Response;
  try {
    res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    throw new CliError(`cannot reach the identity provider at ${endpoint}: ${cause}`, EXIT.UNAVAILABLE);
  }
  const text = await res.text();
  if (!res.ok) {
    let reason = text.slice(0, 200);
    try {
      const body = JSON.parse(text) as { error?: string; error_description?: string };
      reason = [body.error, body.error_description].filter(Boolean).join(': ') || reason;
    } catch {
      // keep the raw text
    }
    const code = res.status === 400 || res.status === 401 ? EXIT.AUTH : EXIT.UNAVAILABLE;
    throw new CliError(`the identity provider refused client ${clientId} (HTTP ${res.status}): ${reason}`, code);
  }
  return JSON.parse(text) as { access_token: string; expires_in: number };
}

export function openSession(opts: GlobalOptions): Session {
  const path = configPath();
  const config = readConfig(path);
  const name = profileName(config, opts.profile);
  const stored: Profile | undefined = config.profiles[name];
  const url = opts.url ?? process.env.CKG_URL ?? stored?.url;
  const fixed = opts.token ?? process.env.CKG_TOKEN;
  const timeoutMs = Math.round(Number(opts.timeout ?? 120) * 1000);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new CliError('--timeout: must be a positive number of seconds', EXIT.USAGE);
  if (!url) {
    throw new CliError(
      `no service address: profile "${name}" does not exist (ckg login --url <gateway> ...) and neither --url nor CKG_URL is set`,
      EXIT.AUTH,
    );
  }
  const token = async ({ refresh = false } = {}): Promise<string> => {
    if (fixed) return fixed;
    if (!stored) throw new CliError(`not logged in: profile "${name}" does not exist (ckg login)`, EXIT.AUTH);
    if (stored.token) return stored.token;
    if (!stored.client_id || !stored.client_secret) {
      throw new CliError(`profile "${name}" has no credentials (ckg login)`, EXIT.AUTH);
    }
    if (!refresh && stored.access_token && (stored.expires_at ?? 0) > Date.now() + 60_000) return stored.access_token;
    const got = await fetchClientToken(
      url,
      stored.realm ?? DEFAULT_REALM,
      stored.client_id,
      stored.client_secret,
      timeoutMs,
    );
    stored.access_token = got.access_token;
    stored.expires_at = Date.now() + got.expires_in * 1000;
    const latest = readConfig(path);
    if (latest.profiles[name]) {
      latest.profiles[name] = {
        ...latest.profiles[name],
        access_token: got.access_token,
        expires_at: stored.expires_at,
      };
      writeConfig(latest, path);
    }
    return got.access_token;
  };
  const api = createHttpApi({
    base: () => url,
    headers: async () => ({ authorization: `Bearer ${await token()}` }),
    timeoutMs,
  });
  return { url, profile: name, token, api, timeoutMs };
}
