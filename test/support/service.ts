/**
 * The whole service in-process, each part through its exported factory, on free ports, against one test database
 * of its own and the real Temporal server: the identity-provider and model-host stand-ins, the graph component, the
 * ingestion component, a sync worker (ingestion and worker share a task queue of their own) and the gateway pointed
 * at all of them. Log lines are kept in memory (`logs`), so a failing test can print them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from '../../lib/log.ts';
import { loadGatewayConfig } from '../../gateway/config.ts';
import { createGateway, type Gateway } from '../../gateway/gateway.ts';
import { loadGraphConfig } from '../../graph-api/config.ts';
import { startGraphApi, type GraphApiHandle } from '../../graph-api/server.ts';
import { startIdp, type Idp } from '../../standins/idp/server.ts';
import { startModelHost, type ModelHost } from '../../standins/model-host/server.ts';
import { loadIngestionConfig } from '../../temporal/ingestion/config.ts';
import { start as startIngestion, type RunningIngestion } from '../../temporal/ingestion/server.ts';
import { loadWorkerConfig } from '../../temporal/worker-config.ts';
import { startWorker, type RunningWorker } from '../../temporal/worker.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { TEST_URL_ENV, testEnv } from './env.ts';
import { prebuiltWorkflows, uniqueTaskQueue } from './temporal.ts';

export interface ServiceOptions {
  /** Access-token lifetime of the identity provider (seconds). */
  accessTokenTtlSeconds?: number;
  /** The gateway's port (default: any free one). A browser test needs it before the identity provider starts. */
  gatewayPort?: number;
  /** Redirect URIs of the public browser client (default: the stand-in's). */
  frontendRedirectUris?: string[];
  /** The retention schedule's interval (default 0: no schedule for this service). */
  retentionIntervalMinutes?: number;
}

export interface Service {
  db: TestDatabase;
  idp: Idp;
  idpStateDir: string;
  modelHost: ModelHost;
  graph: GraphApiHandle;
  ingestion: RunningIngestion;
  worker: RunningWorker;
  gateway: Gateway;
  taskQueue: string;
  scheduleIdPrefix: string;
  /** Every log line of every part, parsed, in arrival order. */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const logs: Array<Record<string, unknown>> = [];
  const logger = (component: string): Logger =>
    createLogger(component, {
      level: 'debug',
      write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>),
    });
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    const errors: unknown[] = [];
    for (const c of closers.splice(0).reverse()) {
      try {
        await c();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'closing the service failed');
  };

  try {
    const db = await createTestDatabase();
    closers.push(() => db.drop());
    const idpStateDir = mkdtempSync(join(tmpdir(), 'ckg-e2e-idp-'));
    closers.push(() => Promise.resolve(rmSync(idpStateDir, { recursive: true, force: true })));
    const idp = await startIdp(
      {
        stateDir: idpStateDir,
        realm: 'service',
        accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 300,
        ...(options.frontendRedirectUris ? { frontendRedirectUris: options.frontendRedirectUris } : {}),
      },
      logger('idp'),
    );
    closers.push(() => idp.close());
    const modelHost = await startModelHost({}, logger('model-host'));
    closers.push(() => modelHost.close());

    const taskQueue = uniqueTaskQueue('e2e');
    const scheduleIdPrefix = `sched-e2e-${randomBytes(4).toString('hex')}-`;
    const common = {
      DATABASE_URL: db.url,
      APP_HOST: '127.0.0.1',
      APP_PORT: '0',
      LOG_LEVEL: 'debug',
    };

    const ingestion = await startIngestion(
      loadIngestionConfig({
        ...common,
        TEMPORAL_ADDRESS: testEnv.temporalAddress,
        TEMPORAL_NAMESPACE: testEnv.temporalNamespace,
        TEMPORAL_TASK_QUEUE: taskQueue,
        SCHEDULE_ID_PREFIX: scheduleIdPrefix,
        RETENTION_INTERVAL_MINUTES: String(options.retentionIntervalMinutes ?? 0),
      }),
      logger('ingestion'),
    );
    closers.push(() => ingestion.close());

    const graph = await startGraphApi(
      loadGraphConfig({
        ...common,
        ...TEST_URL_ENV,
        INGESTION_SERVICE_URL: ingestion.url,
        EMBEDDING_URL: modelHost.embeddingUrl,
        DENSE_LLM_URL: modelHost.chatUrl,
      }),
      logger('graph-api'),
    );
    closers.push(() => graph.close());

    const cloneDir = mkdtempSync(join(tmpdir(), 'ckg-e2e-clones-'));
    closers.push(() => Promise.resolve(rmSync(cloneDir, { recursive: true, force: true })));
    const worker = await startWorker(
      loadWorkerConfig({
        DATABASE_URL: db.url,
        TEMPORAL_ADDRESS: testEnv.temporalAddress,
        TEMPORAL_NAMESPACE: testEnv.temporalNamespace,
        TEMPORAL_TASK_QUEUE: taskQueue,
        EMBEDDING_URL: modelHost.embeddingUrl,
        WORKER_CLONE_DIR: cloneDir,
        SYNC_PARSE_THREADS: '2',
        ...TEST_URL_ENV,
        // No precise worker here: the precise tier is tested in test/pipeline/precise.test.ts.
        SYNC_PRECISE: 'false',
        TEMPORAL_WORKFLOW_BUNDLE: prebuiltWorkflows().workflowBundlePath ?? '',
      }),
      logger('worker'),
    );
    closers.push(() => worker.shutdown());

    const gateway = await createGateway(
      loadGatewayConfig({
        ...common,
        APP_PORT: String(options.gatewayPort ?? 0),
        KEYCLOAK_URL: idp.listenUrl,
        KEYCLOAK_REALM: 'service',
        KC_GATEWAY_CLIENT_SECRET: idp.gatewayClientSecret,
        GRAPH_SERVICE_URL: graph.url,
        INGESTION_SERVICE_URL: ingestion.url,
        METRICS_PORT: '0',
      }),
      { log: logger('gateway') },
    );
    closers.push(() => gateway.close());

    return {
      db,
      idp,
      idpStateDir,
      modelHost,
      graph,
      ingestion,
      worker,
      gateway,
      taskQueue,
      scheduleIdPrefix,
      logs,
      close,
    };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}
