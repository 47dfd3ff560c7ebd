/** A connection to the real Temporal server the stack started, and task queues unique per test. */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, makeTelemetryFilterString, NativeConnection, Runtime } from '@temporalio/worker';
import { testEnv } from './env.ts';

/**
 * The workflow bundle the test runner built for this run (scripts/run-tests.mjs sets TEMPORAL_WORKFLOW_BUNDLE), so a
 * test's workers skip bundling workflows/ (~2.5 CPU-s each); run alone, a test's workers bundle as they start.
 */
export function prebuiltWorkflows(): { workflowBundlePath?: string } {
  const path = process.env.TEMPORAL_WORKFLOW_BUNDLE;
  return path ? { workflowBundlePath: path } : {};
}

export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

export async function connectClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: testEnv.temporalAddress });
  return { client: new Client({ connection, namespace: testEnv.temporalNamespace }), close: () => connection.close() };
}

let runtimeInstalled = false;

/** Quiet tests: the SDK's own log lines (bundler, worker state) only from warnings up, and not for a clean start. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    // The core's own log (e.g. the nondeterminism a replay test provokes on purpose) goes to the same ERROR logger.
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: {
        logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }), forward: {} },
      },
    });
  } catch {
    // Another part of this process already made the runtime.
  }
}

export function connectWorker(): Promise<NativeConnection> {
  quietRuntime();
  return NativeConnection.connect({ address: testEnv.temporalAddress });
}
