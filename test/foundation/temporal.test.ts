import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Worker, type NativeConnection } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { bundlerOptions } from '../../temporal/bundler.ts';
import * as activities from '../support/trivial-activities.ts';
import { connectClient, connectWorker, uniqueTaskQueue } from '../support/temporal.ts';
import { testEnv } from '../support/env.ts';

describe('Temporal dev server', () => {
  let client: Client;
  let closeClient: () => Promise<void>;
  let connection: NativeConnection;
  before(async () => {
    ({ client, close: closeClient } = await connectClient());
    connection = await connectWorker();
  });
  after(async () => {
    await connection.close();
    await closeClient();
  });

  it('runs a trivial workflow with an activity and a signal', async () => {
    const taskQueue = uniqueTaskQueue('foundation');
    const worker = await Worker.create({
      connection,
      namespace: testEnv.temporalNamespace,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('../support/workflows/trivial.ts', import.meta.url)),
      activities,
      bundlerOptions,
    });
    const result: string = await worker.runUntil(async () => {
      const handle = await client.workflow.start('trivialWorkflow', {
        taskQueue,
        workflowId: `trivial-${taskQueue}`,
        args: ['temporal'],
      });
      await handle.signal('finish', '!');
      return (await handle.result()) as string;
    });
    assert.equal(result, 'hello TEMPORAL!');
  });
});
