/**
 * Shallow fetch of one ref (depth 1) into a fresh folder: `git init` + `git fetch --depth 1 <url> <ref>` + checkout,
 * which works for branches, tags and commit ids alike. The code-host token travels in git's environment
 * (GIT_CONFIG_* → http.extraHeader), never on the command line (visible in ps) nor in the URL (logged).
 * Git never prompts (GIT_TERMINAL_PROMPT=0), only safe transports are allowed, and slow transfers time out.
 */
import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export type CloneErrorCode =
  | 'clone_auth_failed'
  | 'clone_unreachable'
  | 'clone_ref_not_found'
  | 'clone_invalid_url'
  | 'clone_timeout'
  | 'clone_failed';

export class CloneError extends Error {
  constructor(
    readonly code: CloneErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CloneError';
  }
}

export interface CloneRequest {
  url: string;
  ref: string;
  token: string | null;
  dir: string;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface CloneResult {
  commitSha: string;
  commitAt: string;
}

/** The URL with any user info removed, safe for messages and logs. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

/** Normalises a source URL: absolute local paths become file:// URLs (so --depth applies). */
export function fetchUrl(url: string): string {
  if (isAbsolute(url)) return pathToFileURL(url).toString();
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new CloneError(
      'clone_invalid_url',
      `source url ${JSON.stringify(url)} is neither an absolute path nor a URL`,
    );
  }
  if (!['file:', 'http:', 'https:', 'ssh:', 'git:'].includes(u.protocol)) {
    throw new CloneError('clone_invalid_url', `source url scheme ${u.protocol} is not supported`);
  }
  if (u.password)
    throw new CloneError('clone_invalid_url', 'source url must not carry credentials: set the source token');
  return url;
}

function gitEnv(token: string | null): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'echo',
    SSH_ASKPASS: 'echo',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=30',
    GIT_ALLOW_PROTOCOL: 'file:http:https:ssh:git',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
  const config: Array<[string, string]> = [
    ['http.lowSpeedLimit', '1000'],
    ['http.lowSpeedTime', '60'],
    ['advice.detachedHead', 'false'],
    ['init.defaultBranch', 'main'],
  ];
  if (token) {
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    config.push(['http.extraHeader', `Authorization: Basic ${basic}`]);
  }
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
}

function git(args: string[], env: NodeJS.ProcessEnv, signal: AbortSignal, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('git', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
    const kill = () => child.kill('SIGKILL');
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    signal.addEventListener('abort', kill, { once: true });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new CloneError('clone_failed', `cannot run git: ${e.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
      if (code === 0) return resolvePromise(out);
      if (signal.aborted) return reject(new CloneError('clone_failed', 'git was stopped: the activity was cancelled'));
      if (timedOut) return reject(new CloneError('clone_timeout', `git ${args[0]} took longer than ${timeoutMs} ms`));
      reject(classify(err));
    });
  });
}

function lastLines(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('hint:'));
  // git's own verdict ("fatal: ...") says most; fall back to the last lines.
  const fatal = lines.filter((l) => /^(fatal|error):/.test(l));
  return (fatal.length > 0 ? fatal : lines).slice(-2).join(' / ');
}

function classify(stderr: string): CloneError {
  const detail = lastLines(stderr);
  if (
    /Authentication failed|could not read (Username|Password)|terminal prompts disabled|(401|403)\b|Permission denied \(publickey/i.test(
      stderr,
    )
  ) {
    return new CloneError(
      'clone_auth_failed',
      `the code host refused the credentials (check the source's access token): ${detail}`,
    );
  }
  if (/couldn't find remote ref|not our ref|no such remote ref|unknown revision|invalid refspec/i.test(stderr)) {
    return new CloneError('clone_ref_not_found', `the ref does not exist in the repository: ${detail}`);
  }
  if (
    /Could not resolve host|Connection refused|Failed to connect|Connection timed out|Network is unreachable|does not appear to be a git repository|not found|Could not read from remote/i.test(
      stderr,
    )
  ) {
    return new CloneError('clone_unreachable', `the repository cannot be reached: ${detail}`);
  }
  return new CloneError('clone_failed', `git failed: ${detail}`);
}

/** Fetches `ref` at depth 1 into `dir` (emptied first) and checks it out; returns the commit id and time. */
export async function checkoutRef(req: CloneRequest): Promise<CloneResult> {
  const url = fetchUrl(req.url);
  const dir = resolve(req.dir);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const env = gitEnv(req.token);
  const run = (args: string[]) => git(args, env, req.signal, req.timeoutMs);
  await run(['init', '-q', dir]);
  await run(['-C', dir, 'fetch', '-q', '--depth', '1', '--no-tags', url, req.ref]);
  await run(['-C', dir, '-c', 'core.symlinks=true', 'checkout', '-q', 'FETCH_HEAD']);
  const out = await run(['-C', dir, 'log', '-1', '--format=%H%x00%cI']);
  const [commitSha, commitAt] = out.trim().split('\0');
  if (!commitSha || !commitAt) throw new CloneError('clone_failed', 'git log returned no commit');
  return { commitSha, commitAt };
}

/** Number of tracked files of the checkout (the total of the parsing phase). */
export async function countTrackedFiles(dir: string, signal: AbortSignal): Promise<number> {
  const out = await git(['-C', dir, 'ls-files', '-z'], gitEnv(null), signal, 60_000);
  return out.split('\0').filter((x) => x !== '').length;
}
