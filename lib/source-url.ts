/**
 * Which repository URLs the service fetches (docs/security.md): checked where a URL enters (POST/PATCH /api/sources:
 * 400 naming `url`) and again on the worker before git runs (a stored URL that the policy refuses fails the sync with
 * the issue `clone_invalid_url`).
 *
 * - Transports: https and ssh by default (`SOURCE_URL_SCHEMES`). http and file (file:// URLs and absolute paths: any
 *   readable repository on the worker, the service's own checkout included) only when the setting lists them: the
 *   local stack and the tests do. git's `ext::` (runs a command), `git://` and every other transport: never.
 * - Hosts: `SOURCE_URL_HOSTS`, when set, is the list of code hosts URLs may name (`github.com`, or `.example.com` for
 *   every host below it), so that a token holder cannot make a worker fetch from a service inside the network.
 * - Credentials: never inside a URL (they would be stored, returned by reads and shown in process listings); a
 *   source's token goes in `access_token`. `scrubUrl` removes them from URLs stored before this check.
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from './errors.ts';

export const SOURCE_URL_SCHEMES = ['https', 'ssh', 'http', 'file'] as const;
export type SourceUrlScheme = (typeof SOURCE_URL_SCHEMES)[number];

export interface SourceUrlPolicy {
  schemes: readonly SourceUrlScheme[];
  /** Hosts URLs may name (`.suffix` for a domain and its subdomains); empty: any host. */
  hosts: readonly string[];
}

/** Production: https and ssh to any host. */
export const DEFAULT_URL_POLICY: SourceUrlPolicy = { schemes: ['https', 'ssh'], hosts: [] };

/** The environment variables of the policy (graph component and worker). */
export const sourceUrlVars = {
  /** Transports the service fetches from, comma-separated: https, ssh, http, file (docs/security.md). */
  SOURCE_URL_SCHEMES: { type: 'string', default: 'https,ssh' },
  /** Code hosts URLs may name, comma-separated (`.example.com` for a whole domain); empty: any host. */
  SOURCE_URL_HOSTS: { type: 'string', default: '' },
} as const;

const list = (raw: string) =>
  raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');

/** The policy of a component's configuration; a bad value is a ConfigError naming the variable. */
export function sourceUrlPolicy(config: { SOURCE_URL_SCHEMES: string; SOURCE_URL_HOSTS: string }): SourceUrlPolicy {
  const schemes = list(config.SOURCE_URL_SCHEMES);
  for (const s of schemes) {
    if (!(SOURCE_URL_SCHEMES as readonly string[]).includes(s)) {
      throw new ConfigError(
        'SOURCE_URL_SCHEMES',
        `${JSON.stringify(s)} is not a transport the service supports (${SOURCE_URL_SCHEMES.join(', ')})`,
      );
    }
  }
  if (schemes.length === 0) throw new ConfigError('SOURCE_URL_SCHEMES', 'must list at least one transport');
  const hosts = list(config.SOURCE_URL_HOSTS);
  for (const h of hosts) {
    if (!/^\.?[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d+)?$/.test(h))
      throw new ConfigError('SOURCE_URL_HOSTS', `${JSON.stringify(h)} is not a host name`);
  }
  return { schemes: [...new Set(schemes)] as SourceUrlScheme[], hosts };
}

export interface ParsedSourceUrl {
  scheme: SourceUrlScheme;
  /** Lower-case host (with :port when given); null for local repositories. */
  host: string | null;
  /** What git is given: the URL, an absolute path as a file:// URL (so that --depth applies). */
  fetchUrl: string;
}

/** `user@host:path`, git's scp-like ssh syntax (user and host never start with '-'). */
const SCP_LIKE = /^([A-Za-z0-9_][\w.+-]*)@([A-Za-z0-9][\w.-]*):(?!\/\/)(\S+)$/;

/** The URL's transport and host, or why it is not a repository URL the service can fetch at all. */
export function parseSourceUrl(url: string): ParsedSourceUrl | { problem: string } {
  if (isAbsolute(url)) return { scheme: 'file', host: null, fetchUrl: pathToFileURL(url).toString() };
  const scp = SCP_LIKE.exec(url);
  if (scp) return { scheme: 'ssh', host: scp[2]!.toLowerCase(), fetchUrl: url };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { problem: 'must be a repository URL (https://, ssh://, user@host:path) or an absolute path' };
  }
  const scheme = u.protocol.slice(0, -1).toLowerCase();
  if (!(SOURCE_URL_SCHEMES as readonly string[]).includes(scheme)) {
    return { problem: `uses the transport ${JSON.stringify(u.protocol)}, which the service never fetches from` };
  }
  if (scheme === 'file') {
    if (u.host !== '' && u.hostname !== 'localhost') return { problem: 'must name a local path (file:///path)' };
    return { scheme: 'file', host: null, fetchUrl: url };
  }
  if (u.password || (u.username && scheme !== 'ssh')) {
    return {
      problem: "must not carry credentials (user:password@ or a token before '@'): set the source's access_token",
    };
  }
  if (u.hostname === '' || u.hostname.startsWith('-')) return { problem: 'must name a host' };
  return { scheme: scheme as SourceUrlScheme, host: u.host.toLowerCase(), fetchUrl: url };
}

function hostAllowed(host: string, hosts: readonly string[]): boolean {
  if (hosts.length === 0) return true;
  const name = host.replace(/:\d+$/, '');
  return hosts.some((h) => (h.startsWith('.') ? name.endsWith(h) || name === h.slice(1) : h === host || h === name));
}

/** Why the policy refuses `url`, or undefined when it may be fetched. Reads after the field's name (`url ...`). */
export function sourceUrlProblem(url: string, policy: SourceUrlPolicy): string | undefined {
  const parsed = parseSourceUrl(url);
  if ('problem' in parsed) return parsed.problem;
  if (!policy.schemes.includes(parsed.scheme)) {
    const local =
      parsed.scheme === 'file' ? ' (local repositories are allowed only where SOURCE_URL_SCHEMES lists file)' : '';
    return `uses ${parsed.scheme}, which this deployment does not fetch from (allowed: ${policy.schemes.join(', ')})${local}`;
  }
  if (parsed.host !== null && !hostAllowed(parsed.host, policy.hosts)) {
    return `names the host ${parsed.host}, which is not among the code hosts this deployment fetches from`;
  }
  return undefined;
}

/** The URL without credentials (user info of http(s) URLs, the password of ssh ones), for reads and messages. */
export function scrubUrl(url: string): string {
  if (!url.includes('@')) return url;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (!u.password && !(u.username && u.protocol !== 'ssh:')) return url;
  if (u.protocol !== 'ssh:') u.username = '';
  u.password = '';
  return u.toString();
}
