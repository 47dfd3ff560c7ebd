/**
 * Starting and stopping the ingestion component: its pool, its Temporal client, the HTTP server. `start(config)`
 * is what main.ts runs and what tests run in-process (APP_PORT=0 picks a free port).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type Koa from 'koa';
import { Client, Connection } from '@temporalio/client';
import { createPool, ping, poolLiveness } from '../../lib/db.ts';
import { listen } from '../../lib/http.ts';
import { createLogger, parseLevel, type Logger } from '../../lib/log.ts';
import { createApp } from './app.ts';
import { retentionInputOf, type IngestionConfig } from './config.ts';
import type { IngestionDeps } from './deps.ts';
import { ensureRetentionSchedule } from './retention.ts';
import { startReconciler } from './syncs/reconcile.ts';
import { startWatcher } from './watch.ts';
import { DEFAULT_SWEEPER, startSweeper } from './webhooks/followups.ts';

/** /health fails when every pooled connection has been checked out this long with none released. */
const POOL_STUCK_MS = 120_000;

export interface RunningIngestion {
  port: number;
  url: string;
  deps: IngestionDeps;
  /** The Koa app it serves (its routers list the routes it registers: the documented-routes test). */
  app: Koa;
  close(): Promise<void>;
}

export function settingsOf(config: IngestionConfig): IngestionDeps['settings'] {
  return {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    scheduleIdPrefix: config.SCHEDULE_ID_PREFIX,
    cancelWaitMs: config.CANCEL_WAIT_MS,
    stopTimeoutMs: config.STOP_TIMEOUT_MS,
    startConflictWaitMs: config.START_CONFLICT_WAIT_MS,
    reconcileGraceMs: config.RECONCILE_GRACE_SECONDS * 1000,
    temporalCallTimeoutMs: config.TEMPORAL_CALL_TIMEOUT_MS,
    temporalConnectTimeoutMs: config.TEMPORAL_CONNECT_TIMEOUT_MS,
    webhooks: {
      quietMs: config.WEBHOOK_QUIET_MS,
      cooldownMs: config.WEBHOOK_COOLDOWN_MS,
      maxWaitMs: config.WEBHOOK_MAX_WAIT_MS,
      intervalMs: config.WEBHOOK_SWEEP_MS,
    },
  };
}

export async function start(config: IngestionConfig, log?: Logger): Promise<RunningIngestion> {
  const logger = log ?? createLogger('ingestion', { level: parseLevel(config.LOG_LEVEL) });
  const pool = createPool(config.DATABASE_URL, {
    max: config.DATABASE_POOL_SIZE,
    applicationName: 'ckg-ingestion',
    acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_SECONDS * 1000,
    log: logger,
  });
  let connection: Connection | undefined;
  try {
    await ping(pool);
    connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  } catch (err) {
    await pool.end();
    throw err;
  }
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  try {
    await ensureRetentionSchedule(
      temporal,
      {
        prefix: config.SCHEDULE_ID_PREFIX,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        intervalMinutes: config.RETENTION_INTERVAL_MINUTES,
        input: retentionInputOf(config),
      },
      logger,
    );
  } catch (err) {
    await connection.close();
    await pool.end();
    throw err;
  }
  const deps: IngestionDeps = {
    pool,
    temporal,
    log: logger,
    settings: settingsOf(config),
    liveness: poolLiveness(pool, POOL_STUCK_MS),
  };
  const sweeper = startSweeper(deps, deps.settings.webhooks ?? DEFAULT_SWEEPER);
  deps.webhookSweeper = sweeper;
  const app = createApp(deps);
  const server: Server = await listen(app, config.APP_PORT, config.APP_HOST);
  const reconciler = startReconciler(
    deps,
    config.RECONCILE_INTERVAL_SECONDS * 1000,
    config.RECONCILE_GRACE_SECONDS * 1000,
  );
  const watcher = startWatcher(deps, config.WATCH_INTERVAL_SECONDS * 1000, config.RECONCILE_GRACE_SECONDS * 1000);
  const port = (server.address() as AddressInfo).port;
  const conn = connection;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    deps,
    app,
    close: async () => {
      await watcher.stop();
      await reconciler.stop();
      await sweeper.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await conn.close();
      await pool.end();
    },
  };
}
