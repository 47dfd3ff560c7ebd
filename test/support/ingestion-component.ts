/**
 * The real ingestion component (temporal/ingestion, `start(config)`, as its main.ts runs it) in-process on a free
 * port, against a test database and the real Temporal server, for tests of components that call it (the graph
 * component's source teardown). Its log lines are kept, parsed, for assertions. Each instance gets a task queue and
 * a schedule-id prefix of its own, so tests never touch each other's Temporal state.
 */
import { randomBytes } from 'node:crypto';
import { createLogger } from '../../lib/log.ts';
import { loadIngestionConfig } from '../../temporal/ingestion/config.ts';
import { start, type RunningIngestion } from '../../temporal/ingestion/server.ts';
import { testEnv } from './env.ts';
import { uniqueTaskQueue } from './temporal.ts';

export interface IngestionComponent extends RunningIngestion {
  /** Every log line of the component, parsed. */
  logs: Array<Record<string, unknown>>;
  taskQueue: string;
  scheduleIdPrefix: string;
}

export async function startIngestionComponent(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<IngestionComponent> {
  const logs: Array<Record<string, unknown>> = [];
  const taskQueue = uniqueTaskQueue('graph-ingestion');
  const scheduleIdPrefix = `sched-graph-${randomBytes(4).toString('hex')}-`;
  const config = loadIngestionConfig({
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: '4',
    APP_PORT: '0',
    APP_HOST: '127.0.0.1',
    TEMPORAL_ADDRESS: testEnv.temporalAddress,
    TEMPORAL_NAMESPACE: testEnv.temporalNamespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    SCHEDULE_ID_PREFIX: scheduleIdPrefix,
    STOP_TIMEOUT_MS: '1000',
    LOG_LEVEL: 'debug',
    // No retention schedule per test component (a test that wants one sets it).
    RETENTION_INTERVAL_MINUTES: '0',
    ...env,
  });
  const log = createLogger('ingestion', {
    level: 'debug',
    write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>),
  });
  const running = await start(config, log);
  return { ...running, logs, taskQueue, scheduleIdPrefix };
}
