/**
 * A real Keycloak for the realm-file test: the `org.keycloak:keycloak-quarkus-dist` zip from Maven Central, cached
 * under $HOME/.cache/ckg/keycloak (downloaded and checked once), run on a JDK >= 21 found on the machine.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/wait.ts';

export const KEYCLOAK_VERSION = '26.7.3';
/** SHA-1 published beside the zip on Maven Central. */
const KEYCLOAK_SHA1 = '1e21a7f572581692aacb379dbba8413f99b67208';
const ZIP_URL = `https://repo1.maven.org/maven2/org/keycloak/keycloak-quarkus-dist/${KEYCLOAK_VERSION}/keycloak-quarkus-dist-${KEYCLOAK_VERSION}.zip`;

const cacheDir = join(homedir(), '.cache', 'ckg', 'keycloak');

function javaMajor(javaHome: string): number | undefined {
  const bin = join(javaHome, 'bin', 'java');
  if (!existsSync(bin)) return undefined;
  const out = spawnSync(bin, ['-version'], { encoding: 'utf8' });
  const m = /version "(\d+)/.exec(`${out.stderr}${out.stdout}`);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** A JDK that Keycloak 26 runs on (Java 21 or later): KEYCLOAK_JAVA_HOME, JAVA_HOME, or one under /usr/lib/jvm. */
export function findJava(): string {
  const candidates = [process.env.KEYCLOAK_JAVA_HOME, process.env.JAVA_HOME];
  if (existsSync('/usr/lib/jvm')) {
    for (const d of readdirSync('/usr/lib/jvm').sort().reverse()) candidates.push(join('/usr/lib/jvm', d));
  }
  for (const c of candidates) {
    if (c && (javaMajor(c) ?? 0) >= 21) return c;
  }
  throw new Error(`Keycloak ${KEYCLOAK_VERSION} needs Java 21+; none found (set KEYCLOAK_JAVA_HOME)`);
}

/** The unpacked distribution, downloading and unpacking it into the cache on first use. */
export async function ensureKeycloak(): Promise<string> {
  const home = join(cacheDir, `keycloak-${KEYCLOAK_VERSION}`);
  if (existsSync(join(home, 'bin', 'kc.sh'))) return home;
  mkdirSync(cacheDir, { recursive: true });
  const zip = join(cacheDir, `keycloak-${KEYCLOAK_VERSION}.zip`);
  if (!existsSync(zip)) {
    const res = await fetch(ZIP_URL);
    if (!res.ok) throw new Error(`download of ${ZIP_URL} failed: HTTP ${res.status}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    const sha1 = createHash('sha1').update(bytes).digest('hex');
    if (sha1 !== KEYCLOAK_SHA1) throw new Error(`${ZIP_URL}: sha1 ${sha1}, expected ${KEYCLOAK_SHA1}`);
    writeFileSync(`${zip}.part`, bytes);
    renameSync(`${zip}.part`, zip);
  }
  const staging = mkdtempSync(join(cacheDir, 'unpack-'));
  const unzip = spawnSync('unzip', ['-q', zip, '-d', staging], { encoding: 'utf8' });
  if (unzip.status !== 0) throw new Error(`unzip failed: ${unzip.stderr || String(unzip.error)}`);
  renameSync(join(staging, `keycloak-${KEYCLOAK_VERSION}`), home);
  rmSync(staging, { recursive: true, force: true });
  return home;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningKeycloak {
  baseUrl: string;
  process: ChildProcess;
  log: () => string;
  stop(): Promise<void>;
}

export interface KeycloakOptions {
  /** kc.sh arguments; default `start-dev --db=dev-mem --import-realm --http-port=<port>`. */
  args?: (port: number) => string[];
  /** The HTTP port (default: a free one). The management port is always a free one. */
  port?: number;
  /** Only these variables (and JAVA_HOME, PATH, HOME) instead of this process's environment plus `env`. */
  exactEnv?: boolean;
}

/**
 * Starts Keycloak (by default `kc.sh start-dev --import-realm` with an in-memory database) from a per-run home folder
 * whose `data/import` holds the given realm files (the distribution's own folders are linked, bin is copied because
 * kc.sh resolves its home from its own path). Resolves once the realm's discovery document answers.
 */
export async function startKeycloak(
  realmFiles: string[],
  realm: string,
  env: Record<string, string>,
  options: KeycloakOptions = {},
): Promise<RunningKeycloak> {
  const dist = await ensureKeycloak();
  const javaHome = findJava();
  const home = mkdtempSync(join(tmpdir(), 'keycloak-home-'));
  for (const d of ['lib', 'providers', 'themes', 'conf']) symlinkSync(join(dist, d), join(home, d));
  cpSync(join(dist, 'bin'), join(home, 'bin'), { recursive: true });
  mkdirSync(join(home, 'data', 'import'), { recursive: true });
  for (const f of realmFiles) cpSync(f, join(home, 'data', 'import', f.split('/').at(-1) ?? 'realm.json'));

  const port = options.port ?? (await freePort());
  const managementPort = await freePort();
  const args = options.args
    ? options.args(port)
    : ['start-dev', '--db=dev-mem', '--import-realm', `--http-port=${port}`];
  let log = '';
  const child = spawn(join(home, 'bin', 'kc.sh'), [...args, `--http-management-port=${managementPort}`], {
    cwd: home,
    env: {
      ...(options.exactEnv ? { HOME: home } : process.env),
      ...env,
      JAVA_HOME: javaHome,
      PATH: `${join(javaHome, 'bin')}:${process.env.PATH ?? ''}`,
      JAVA_OPTS_APPEND: '-XX:TieredStopAtLevel=1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.setEncoding('utf8').on('data', (c: string) => (log += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (log += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(-child.pid, 'SIGTERM');
      const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 20000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(home, { recursive: true, force: true });
  };

  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      () => `keycloak to be ready:\n${log.slice(-4000)}`,
      async () => {
        if (child.exitCode !== null) {
          throw new Error(`keycloak exited (${child.exitCode}) before it was ready:\n${log.slice(-4000)}`);
        }
        try {
          return (await fetch(`${baseUrl}/realms/${realm}/.well-known/openid-configuration`)).ok;
        } catch {
          return false; // not listening yet
        }
      },
      300_000,
      500,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl, process: child, log: () => log, stop };
}
