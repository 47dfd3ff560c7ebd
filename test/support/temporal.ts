/** A connection to the real Temporal server the stack started, and task queues unique per test. */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { testEnv } from './env.ts';

export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

export async function connectClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: testEnv.temporalAddress });
  return { client: new Client({ connection, namespace: testEnv.temporalNamespace }), close: () => connection.close() };
}

export function connectWorker(): Promise<NativeConnection> {
  return NativeConnection.connect({ address: testEnv.temporalAddress });
}
