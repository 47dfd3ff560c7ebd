/**
 * The precise worker (issue 29): one Temporal worker per language it has an indexer for, each on that language's
 * queue (`precise-<language>`), and one on this process's own queue (`<prefix>-host@<host>:<pid>:<id>`), where a sync
 * sends preciseIndex for the index preparePrecise holds here (activities/precise/precise-index.ts). It declares what it has in precise_workers (its queues and
 * indexer versions and limits), refreshed every 20 s while it runs and removed when it stops, so the sync's plan step
 * sends a language only where a live worker can index it. `createPreciseWorker` takes ready dependencies (tests run
 * it in-process); temporal/precise-worker-main.ts builds them from the environment.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { NativeConnection } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { createPreciseIndex } from '../activities/precise/index.ts';
import { INDEXER_NAMES, installedIndexers, type PreciseLanguage } from '../activities/precise/indexers.ts';
import { PRECISE_LANGUAGES, preciseQueue, type PreciseSettings } from '../activities/precise/settings.ts';
import type { Pool } from '../lib/db.ts';
import type { Logger } from '../lib/log.ts';

/** `scip-typescript 0.4.0`: the npm package's version next to the executable, or the tool's own `--version`. */
export function indexerVersion(language: PreciseLanguage, bin: string): string {
  const name = INDEXER_NAMES[language];
  try {
    if (language === 'java') {
      // The jars' folder: scip-java_<scala>-<version>.jar names the version.
      const jar = readdirSync(bin).find((f) => /^scip-java_[\d.]+-.+\.jar$/.test(f));
      const v = jar ? /^scip-java_[\d.]+-(.+)\.jar$/.exec(jar)![1] : 'unknown';
      return `${name} ${v}`;
    }
    let dir = dirname(realpathSync(bin));
    for (let i = 0; i < 5; i++, dir = dirname(dir)) {
      const pkg = join(dir, 'package.json');
      if (existsSync(pkg)) {
        const p = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string; version?: string };
        if (p.name?.endsWith(name) && p.version) return `${name} ${p.version}`;
      }
    }
    const v = execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim().split('\n')[0];
    return `${name} ${v}`;
  } catch {
    return `${name} unknown`;
  }
}

export interface PreciseWorkerDeps {
  connection: NativeConnection;
  namespace: string;
  pool: Pool;
  log: Logger;
  settings: PreciseSettings;
  queuePrefix: string;
  /** Languages to serve (empty: every installed indexer). */
  languages: readonly string[];
  maxConcurrent: number;
  env?: NodeJS.ProcessEnv;
}

export class PreciseWorker {
  private timer: NodeJS.Timeout | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private constructor(
    readonly workers: Worker[],
    readonly identity: string,
    readonly queues: string[],
    private readonly declare: () => Promise<void>,
    private readonly undeclare: () => Promise<void>,
    private readonly sweepHeld: (maxAgeMs?: number) => Promise<number>,
    private readonly log: Logger,
  ) {}

  static async create(deps: PreciseWorkerDeps): Promise<PreciseWorker> {
    const found = installedIndexers(deps.env ?? process.env);
    const indexers: Partial<Record<PreciseLanguage, { bin: string; version: string }>> = {};
    for (const l of PRECISE_LANGUAGES) {
      const bin = found[l];
      if (!bin || (deps.languages.length > 0 && !deps.languages.includes(l))) continue;
      indexers[l] = { bin, version: indexerVersion(l, bin) };
    }
    const langs = Object.keys(indexers) as PreciseLanguage[];
    if (langs.length === 0) throw new Error('no SCIP indexer is installed (scripts/stack/indexers.sh; CKG_SCIP_*)');
    const hostQueue = `${deps.queuePrefix}-host@${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    const precise = createPreciseIndex({
      pool: deps.pool,
      log: deps.log,
      settings: deps.settings,
      indexers,
      hostQueue,
    });
    const activities = precise.activities;
    const workers: Worker[] = [];
    const queues = langs.map((l) => preciseQueue(deps.queuePrefix, l));
    for (const queue of [...queues, hostQueue]) {
      workers.push(
        await Worker.create({
          connection: deps.connection,
          namespace: deps.namespace,
          taskQueue: queue,
          activities,
          maxConcurrentActivityTaskExecutions: deps.maxConcurrent,
          maxHeartbeatThrottleInterval: '1 second',
          defaultHeartbeatThrottleInterval: '1 second',
          shutdownGraceTime: '10 seconds',
        }),
      );
    }
    const identity = `${hostname()}:${process.pid}:${deps.queuePrefix}`;
    const declaration = Object.fromEntries(
      langs.map((l) => [
        l,
        {
          version: indexers[l]!.version,
          queue: preciseQueue(deps.queuePrefix, l),
          wall_ms: deps.settings.limits[l].wallMs,
          memory_mb: deps.settings.limits[l].memoryMb,
        },
      ]),
    );
    const declare = async () => {
      await deps.pool.query(
        `INSERT INTO precise_workers (identity, task_queues, indexers, settings)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (identity) DO UPDATE SET task_queues = EXCLUDED.task_queues, indexers = EXCLUDED.indexers,
           settings = EXCLUDED.settings, last_seen = now()`,
        [
          identity,
          queues,
          JSON.stringify(declaration),
          JSON.stringify({ allow_dependencies: deps.settings.allowDependencies }),
        ],
      );
    };
    const undeclare = async () => {
      await deps.pool.query(`DELETE FROM precise_workers WHERE identity = $1`, [identity]);
    };
    return new PreciseWorker(
      workers,
      identity,
      queues,
      declare,
      undeclare,
      (maxAgeMs?: number) => precise.sweepHeld(maxAgeMs),
      deps.log,
    );
  }

  getState() {
    return this.workers[0]!.getState();
  }

  async run(): Promise<void> {
    await this.declare();
    this.timer = setInterval(() => {
      this.declare().catch((err: unknown) => this.log.warning('precise_declare_failed', { error: String(err) }));
    }, 20_000);
    this.sweeper = setInterval(() => {
      this.sweepHeld().then(
        (n) => (n > 0 ? this.log.info('precise_held_swept', { removed: n }) : undefined),
        (err: unknown) => this.log.warning('precise_sweep_failed', { error: String(err) }),
      );
    }, 60_000);
    const stopAll = () => {
      for (const w of this.workers) if (w.getState() === 'RUNNING') w.shutdown();
    };
    try {
      await Promise.all(this.workers.map((w) => w.run().finally(stopAll)));
    } finally {
      if (this.timer) clearInterval(this.timer);
      if (this.sweeper) clearInterval(this.sweeper);
      await this.undeclare().catch(() => undefined);
      // Held indexes die with the process that holds them (their syncs index again on another worker).
      await this.sweepHeld(0).catch(() => undefined);
    }
  }

  shutdown(): void {
    for (const w of this.workers) if (w.getState() === 'RUNNING') w.shutdown();
  }
}
