/**
 * Shallow fetch of one ref (depth 1) into a fresh folder: `git init` + `git fetch --depth 1 <url> <ref>` + checkout,
 * which works for branches, tags and commit ids alike. The code-host token travels in git's environment
 * (GIT_CONFIG_* → http.extraHeader), never on the command line (visible in ps) nor in the URL (logged).
 *
 * Every git command here runs hardened, whatever its input (docs/security.md):
 * - no shell, and user input (the URL, the ref) only after `--end-of-options`, checked first (lib/git-ref.ts): a value
 *   can never be read as an option such as `--upload-pack=<command>`;
 * - the environment is built from nothing but PATH and HOME: no system or user config (GIT_CONFIG_NOSYSTEM,
 *   GIT_CONFIG_GLOBAL=/dev/null), the repository folder named explicitly (GIT_DIR, GIT_WORK_TREE, no discovery
 *   upwards), never a prompt, only the allowed transports (protocol.allow=never plus one `always` per transport);
 * - the cloned repository's content never acts: hooks are looked for under /dev/null (core.hooksPath), the only
 *   config read is what this file writes and sets (so a `.gitattributes` filter names a driver that does not exist and
 *   runs nothing; LFS smudge is off), no submodule is fetched or checked out, no fsmonitor, no redirects followed.
 */
import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { gitRefProblem } from '../../../lib/git-ref.ts';
import {
  parseSourceUrl,
  sourceUrlProblem,
  type SourceUrlPolicy,
  type SourceUrlScheme,
} from '../../../lib/source-url.ts';

export type CloneErrorCode =
  | 'clone_auth_failed'
  | 'clone_unreachable'
  | 'clone_ref_not_found'
  | 'clone_invalid_url'
  | 'clone_invalid_ref'
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
  /** Which URLs may be fetched (the worker's SOURCE_URL_SCHEMES / SOURCE_URL_HOSTS). */
  urls: SourceUrlPolicy;
  dir: string;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface CloneResult {
  commitSha: string;
  commitAt: string;
  /** Files of the commit left out of the checkout, with the reason (a path the file system cannot hold). */
  skipped: Array<{ path: string; reason: string }>;
}

/** Linux PATH_MAX (bytes, with the terminating NUL) and NAME_MAX. */
const PATH_MAX = 4096;
const NAME_MAX = 255;

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

/** What git is given for a source URL the policy allows (lib/source-url.ts); clone_invalid_url otherwise. */
export function fetchUrl(url: string, policy: SourceUrlPolicy): string {
  const problem = sourceUrlProblem(url, policy);
  if (problem) throw new CloneError('clone_invalid_url', `the source url ${problem}; nothing was fetched`);
  const parsed = parseSourceUrl(url);
  if ('problem' in parsed) throw new CloneError('clone_invalid_url', `the source url ${parsed.problem}`);
  return parsed.fetchUrl;
}

/**
 * git's environment: `token` as an Authorization header; `dir` (absolute) names the repository the command works on
 * (GIT_DIR=<dir>/.git, GIT_WORK_TREE=<dir>), so git never looks for one in the folders above; `transports` are the
 * only ones git may use (GIT_ALLOW_PROTOCOL, protocol.allow=never + protocol.<name>.allow=always): ext:: and every
 * other one never.
 */
export function gitEnv(
  token: string | null,
  dir?: string,
  transports: readonly SourceUrlScheme[] = [],
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'echo',
    SSH_ASKPASS: 'echo',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=30',
    GIT_ALLOW_PROTOCOL: transports.join(':'),
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_LFS_SKIP_SMUDGE: '1',
  };
  if (dir !== undefined) {
    env.GIT_DIR = join(dir, '.git');
    env.GIT_WORK_TREE = dir;
  }
  const config: Array<[string, string]> = [
    ['http.lowSpeedLimit', '1000'],
    ['http.lowSpeedTime', '60'],
    ['http.followRedirects', 'false'],
    ['advice.detachedHead', 'false'],
    ['init.defaultBranch', 'main'],
    ['init.templateDir', ''],
    ['core.hooksPath', '/dev/null'],
    ['core.fsmonitor', 'false'],
    ['core.attributesFile', '/dev/null'],
    ['core.symlinks', 'true'],
    ['protocol.allow', 'never'],
    ...transports.map((p): [string, string] => [`protocol.${p}.allow`, 'always']),
    ['submodule.recurse', 'false'],
    ['fetch.recurseSubmodules', 'false'],
    ['fetch.writeCommitGraph', 'false'],
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
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

/** Throws clone_invalid_ref when `ref` is not a name git may be given (lib/git-ref.ts). */
export function checkRef(ref: string): void {
  const problem = gitRefProblem(ref);
  if (problem) {
    throw new CloneError(
      'clone_invalid_ref',
      `the ref ${JSON.stringify(ref)} is not a valid git ref (it ${problem}); nothing was run: ` +
        `set a valid default_branch on the source or a valid ref on the sync`,
    );
  }
}

/** The arguments of the shallow fetch of `ref` from `url`: both after --end-of-options, nothing recursed. */
export function fetchArgs(url: string, ref: string): string[] {
  return ['fetch', '-q', '--depth', '1', '--no-tags', '--no-recurse-submodules', '--end-of-options', url, ref];
}

export function git(args: string[], env: NodeJS.ProcessEnv, signal: AbortSignal, timeoutMs: number): Promise<string> {
  return gitBytes(args, env, signal, timeoutMs).then((b) => b.toString('utf8'));
}

export function gitBytes(
  args: string[],
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('git', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => out.push(d));
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
      if (code === 0) return resolvePromise(Buffer.concat(out));
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
  checkRef(req.ref);
  const url = fetchUrl(req.url, req.urls);
  const dir = resolve(req.dir);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const env = gitEnv(req.token, dir, req.urls.schemes);
  const run = (args: string[]) => git(args, env, req.signal, req.timeoutMs);
  await git(['init', '-q', dir], gitEnv(null), req.signal, req.timeoutMs);
  await run(['-C', dir, ...fetchArgs(url, req.ref)]);
  // A path the file system cannot hold (longer than PATH_MAX with the clone folder, or a name longer than NAME_MAX)
  // used to fail the whole checkout, so the repository could never be indexed: such files are left out (the caller
  // records an issue for each) and the rest is checked out.
  const names = await gitBytes(
    ['-C', dir, 'ls-tree', '-r', '-z', '--full-tree', '--name-only', 'FETCH_HEAD'],
    env,
    req.signal,
    req.timeoutMs,
  );
  const skipped = unrepresentable(names, Buffer.byteLength(dir) + 1);
  const checkout = ['-C', dir, 'checkout', '-q', '--no-recurse-submodules', 'FETCH_HEAD'];
  if (skipped.length === 0) await run(checkout);
  else await run([...checkout, '--', '.', ...skipped.map((f) => `:(exclude,literal)${f.path}`)]);
  const out = await run(['-C', dir, 'log', '-1', '--format=%H%x00%cI', 'FETCH_HEAD']);
  const [commitSha, commitAt] = out.trim().split('\0');
  if (!commitSha || !commitAt) throw new CloneError('clone_failed', 'git log returned no commit');
  return { commitSha, commitAt, skipped };
}

/** Paths of a NUL-separated `ls-tree -z --name-only` listing that the file system cannot hold under the prefix. */
export function unrepresentable(listing: Buffer, prefixBytes: number): Array<{ path: string; reason: string }> {
  const out: Array<{ path: string; reason: string }> = [];
  let start = 0;
  for (let i = 0; i <= listing.length; i++) {
    if (i < listing.length && listing[i] !== 0) continue;
    if (i > start) {
      const raw = listing.subarray(start, i);
      const path = raw.toString('utf8');
      const longest = Math.max(...path.split('/').map((c) => Buffer.byteLength(c)));
      if (prefixBytes + raw.length >= PATH_MAX) {
        out.push({ path, reason: `the path is ${raw.length} bytes long; the file system holds at most ${PATH_MAX}` });
      } else if (longest > NAME_MAX) {
        out.push({
          path,
          reason: `a name in the path is ${longest} bytes long; the file system holds at most ${NAME_MAX}`,
        });
      }
    }
    start = i + 1;
  }
  return out;
}

/** Number of tracked files of the checkout (the total of the parsing phase). */
export async function countTrackedFiles(dir: string, signal: AbortSignal): Promise<number> {
  const out = await git(['-C', dir, 'ls-files', '-z'], gitEnv(null, resolve(dir)), signal, 60_000);
  return out.split('\0').filter((x) => x !== '').length;
}

/** path -> blob id of every file of the commit checkoutRef checked out in `dir` (the precise tier's reruns). */
export async function treeBlobs(dir: string, signal: AbortSignal, timeoutMs: number): Promise<Map<string, string>> {
  const listing = await gitBytes(
    ['-C', dir, 'ls-tree', '-r', '-z', '--full-tree', 'FETCH_HEAD'],
    gitEnv(null, resolve(dir)),
    signal,
    timeoutMs,
  );
  const out = new Map<string, string>();
  for (const entry of listing.toString('utf8').split('\0')) {
    // "<mode> <type> <object id>\t<path>"
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [, type, oid] = entry.slice(0, tab).split(' ');
    if (type === 'blob' && oid) out.set(entry.slice(tab + 1), oid);
  }
  return out;
}
