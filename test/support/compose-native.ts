/**
 * Runs docker-compose.yml without a container engine: every application service (the `node` commands: gateway,
 * graph, ingestion, worker, and the model-host stand-in of the `standins` profile) as a native process from this
 * checkout (the image's WORKDIR) with exactly the environment the file gives it plus the image's `ENV` lines, a
 * PATH and a HOME — nothing of this process's environment — after the mechanical rewriting of test/support/compose.ts.
 *
 * The infrastructure services are the test stack's or native equivalents:
 * - `postgres`: the test's PostgreSQL server; `ckg` is a fresh database of this run, prepared as the image's init
 *   script prepares it (its role, its extensions);
 * - `temporal`: the test's Temporal server (`temporal-ui` is not run);
 * - `temporal-search-attributes`: its shell command, run with the pinned `temporal` CLI the stack installed;
 * - `keycloak`: the real Keycloak distribution from Maven Central (test/standins/keycloak-dist.ts) with the
 *   service's command, environment and realm folder (its management port, unused here, gets a free port).
 *
 * Services start in `depends_on` order, each condition honoured: `service_healthy` runs the service's own
 * healthcheck command natively, `service_completed_successfully` waits for exit 0, `service_started` for the start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startKeycloak, freePort, type RunningKeycloak } from '../standins/keycloak-dist.ts';
import {
  activeServices,
  containerPorts,
  dockerfileEnv,
  durationMs,
  loadCompose,
  localizeArg,
  localizeEnv,
  publishedPorts,
  type ComposeFile,
  type ComposeService,
  type LocalMap,
} from './compose.ts';
import { databaseUrl } from './db.ts';
import { testEnv } from './env.ts';
import { waitFor } from './wait.ts';

export const ROOT = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

export interface NativeProcess {
  name: string;
  child: ChildProcess;
  env: Record<string, string>;
  output: string[];
  /** Parsed JSON log lines. */
  lines(): Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

export interface NativeDeployment {
  file: ComposeFile;
  map: LocalMap;
  /** The environment each service was given (after the rewriting). */
  env: Record<string, Record<string, string>>;
  processes: Map<string, NativeProcess>;
  keycloak: Promise<RunningKeycloak>;
  /** http://127.0.0.1:<local port> of a service's container port. */
  url(service: string, containerPort: number): string;
  /** The address users outside reach for a published host port. */
  publicUrl(hostPort: number): string;
  /** Resolves when the service's own healthcheck passes. */
  healthy(service: string): Promise<void>;
  /** Every service's recent output, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

const INFRA = new Set(['postgres', 'temporal', 'temporal-ui', 'temporal-search-attributes', 'keycloak']);

function temporalCliDir(): string {
  const script = readFileSync(join(ROOT, 'scripts/stack/temporal.sh'), 'utf8');
  const version = /^TEMPORAL_CLI_VERSION=(\S+)/m.exec(script)?.[1];
  const cache = process.env.CKG_CACHE_DIR ?? join(homedir(), '.cache', 'ckg');
  return join(cache, `temporal-${version}`, 'bin');
}

function spawnNative(name: string, argv: string[], env: Record<string, string>): NativeProcess {
  const [cmd, ...args] = argv;
  const child = spawn(cmd === 'node' ? process.execPath : cmd!, args, {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (c: Buffer) => {
    output.push(c.toString('utf8'));
    if (output.length > 4000) output.splice(0, 1000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    name,
    child,
    env,
    output,
    exited,
    lines: () =>
      output
        .join('')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

function run(argv: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const p = spawnNative('check', argv, env);
  return p.exited.then((code) => ({ code, output: p.output.join('') }));
}

async function healthcheck(s: ComposeService, env: Record<string, string>): Promise<boolean> {
  const test = s.healthcheck?.test;
  if (!test) return true;
  const argv = typeof test === 'string' ? ['/bin/sh', '-c', test] : test;
  const [kind, ...rest] = argv;
  const cmd = kind === 'CMD-SHELL' ? ['/bin/sh', '-c', rest.join(' ')] : kind === 'CMD' ? rest : argv;
  return (await run(cmd, env)).code === 0;
}

/** Prepares the fresh database as the postgres image does: the POSTGRES_USER role, the init script's extensions. */
async function prepareDatabase(file: ComposeFile, name: string): Promise<void> {
  const pgEnv = file.services.postgres!.environment ?? {};
  const user = String(pgEnv.POSTGRES_USER);
  const password = String(pgEnv.POSTGRES_PASSWORD);
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  try {
    const role = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [user]);
    const pw = password.replace(/'/g, "''");
    await admin.query(
      role.rowCount === 0
        ? `CREATE ROLE ${user} LOGIN SUPERUSER PASSWORD '${pw}'`
        : `ALTER ROLE ${user} LOGIN SUPERUSER PASSWORD '${pw}'`,
    );
    await admin.query(`CREATE DATABASE ${name} OWNER ${user}`);
  } finally {
    await admin.end();
  }
  // The statements the image's init script runs in the service's database.
  const init = readFileSync(join(ROOT, 'deploy/postgres/init-extensions.sql'), 'utf8');
  const inDb = init.split(/^\\connect ckg$/m)[1] ?? '';
  const db = new pg.Client({ connectionString: databaseUrl(name) });
  await db.connect();
  try {
    for (const stmt of inDb.split(';').map((x) => x.trim())) if (stmt) await db.query(stmt);
  } finally {
    await db.end();
  }
}

export async function dropDeploymentDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export async function startNativeDeployment(
  vars: Record<string, string>,
  profiles: string[],
): Promise<NativeDeployment> {
  const file = loadCompose(join(ROOT, 'docker-compose.yml'), vars);
  const names = activeServices(file, profiles);
  const database = `ckg_deploy_${randomBytes(5).toString('hex')}`;
  const map: LocalMap = { ports: new Map(), published: new Map(), volumes: new Map(), database };
  const pgPort = Number(new URL(testEnv.databaseUrl).port || 5432);
  const temporalPort = Number(testEnv.temporalAddress.split(':').at(-1));
  for (const name of names) {
    for (const port of containerPorts(file.services[name]!)) {
      const fixed =
        name === 'postgres' && port === 5432 ? pgPort : name === 'temporal' && port === 7233 ? temporalPort : undefined;
      map.ports.set(`${name}:${port}`, fixed ?? (await freePort()));
    }
  }
  // The infrastructure's own ports, even where the file does not list them (it needs none published).
  map.ports.set('postgres:5432', pgPort);
  map.ports.set('temporal:7233', temporalPort);
  for (const name of names) {
    for (const [host, container] of publishedPorts(file.services[name]!)) {
      map.published.set(host, map.ports.get(`${name}:${container}`)!);
    }
  }
  const scratch = mkdtempSync(join(tmpdir(), 'ckg-compose-'));
  for (const v of Object.keys(file.volumes ?? {})) map.volumes.set(v, mkdtempSync(join(scratch, `${v}-`)));

  const imageEnv = dockerfileEnv(join(ROOT, 'Dockerfile'));
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch };
  const env: Record<string, Record<string, string>> = {};
  for (const name of names) env[name] = localizeEnv(name, file.services[name]!, map);

  const processes = new Map<string, NativeProcess>();
  const done = new Map<string, Promise<void>>();
  let keycloak: Promise<RunningKeycloak> | undefined;
  let stopping = false;

  const startOne = async (name: string): Promise<void> => {
    const s = file.services[name]!;
    for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
      await dependency(dep, condition);
    }
    if (stopping) return;
    if (name === 'postgres') return prepareDatabase(file, database);
    if (name === 'temporal' || name === 'temporal-ui') return;
    if (name === 'keycloak') {
      const importDir = join(ROOT, 'deploy/keycloak');
      const kcPort = map.ports.get('keycloak:8080')!;
      keycloak = startKeycloak(
        readdirSync(importDir).map((f) => join(importDir, f)),
        env.keycloak!.KEYCLOAK_REALM ?? 'service',
        env.keycloak!,
        { port: kcPort, exactEnv: true, args: () => s.command!.map((a) => localizeArg(name, s, a, map)) },
      );
      keycloak.catch(() => undefined);
      return;
    }
    const argv = [...(s.entrypoint ?? []), ...(s.command ?? [])].map((a) => localizeArg(name, s, a, map));
    if (name === 'temporal-search-attributes') {
      const r = await run(argv, { ...baseEnv, ...env[name], PATH: `${temporalCliDir()}:${baseEnv.PATH}` });
      if (r.code !== 0) throw new Error(`${name} exited ${r.code}: ${r.output}`);
      return;
    }
    if (s.command?.[0] !== 'node') throw new Error(`service ${name}: no native way to run ${s.image ?? '?'}`);
    processes.set(name, spawnNative(name, argv, { ...baseEnv, ...imageEnv, ...env[name] }));
  };

  const dependency = async (dep: string, condition: string): Promise<void> => {
    const started = done.get(dep);
    if (!started) throw new Error(`depends_on names ${dep}, which is not in the deployment`);
    await started;
    if (condition !== 'service_healthy' || INFRA.has(dep)) return;
    const s = file.services[dep]!;
    const p = processes.get(dep)!;
    await waitFor(
      () => `${dep} to become healthy:\n${p.output.join('').slice(-3000)}`,
      () => {
        if (p.child.exitCode !== null) throw new Error(`${dep} exited (${p.child.exitCode}):\n${p.output.join('')}`);
        return healthcheck(s, { ...baseEnv, ...imageEnv, ...env[dep] });
      },
      Math.max(180_000, durationMs(s.healthcheck?.interval, 5000) * 10),
      300,
    );
  };

  // Every service starts as soon as what it depends on allows, all at once otherwise (as compose does).
  const order = [...names].sort((a, b) => Number(a !== 'keycloak') - Number(b !== 'keycloak'));
  const pending = new Map<string, () => Promise<void>>();
  for (const name of order) {
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    done.set(
      name,
      new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      }),
    );
    done.get(name)!.catch(() => undefined);
    pending.set(name, () => startOne(name).then(resolve, reject));
  }

  const deployment: NativeDeployment = {
    file,
    map,
    env,
    processes,
    get keycloak() {
      return keycloak ?? Promise.reject(new Error('keycloak was not started'));
    },
    healthy: (service) => dependency(service, 'service_healthy'),
    url: (service, port) => `http://127.0.0.1:${map.ports.get(`${service}:${port}`)}`,
    publicUrl: (hostPort) => `http://127.0.0.1:${map.published.get(hostPort)}`,
    logs: () => [...processes.values()].map((p) => `--- ${p.name}\n${p.output.join('').slice(-4000)}`).join('\n'),
    stop: async () => {
      stopping = true;
      await Promise.all(
        [...processes.values()].map(async (p) => {
          if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
          const timer = setTimeout(() => p.child.kill('SIGKILL'), 20_000);
          await p.exited;
          clearTimeout(timer);
        }),
      );
      if (keycloak) await keycloak.then((k) => k.stop()).catch(() => undefined);
      await dropDeploymentDatabase(database);
      rmSync(scratch, { recursive: true, force: true });
    },
  };

  try {
    await Promise.all([...pending.values()].map((start) => start()));
  } catch (err) {
    const logs = deployment.logs();
    await deployment.stop();
    throw new Error(`the deployment did not start: ${err instanceof Error ? err.message : String(err)}\n${logs}`, {
      cause: err,
    });
  }
  return deployment;
}
