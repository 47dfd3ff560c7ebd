/**
 * The Temporal side of sync commands: start, find out which sync a source's workflow is running, signal cancel,
 * and stop a workflow for good (signal, wait, terminate). The workflow id of a sync is its source id.
 */
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import {
  CKG_SYNC_ID,
  SYNC_WORKFLOW_TYPE,
  cancelSignal,
  syncRetryOptions,
  syncStartOptions,
  type SyncStartInput,
} from '../../../workflows/sync-contract.ts';

export async function startSyncWorkflow(client: Client, input: SyncStartInput): Promise<void> {
  await client.workflow.start(SYNC_WORKFLOW_TYPE, syncStartOptions(input));
}

/** Retry: signal-with-start the source's workflow with `retry { syncId }`. */
export async function signalRetry(client: Client, input: SyncStartInput): Promise<void> {
  await client.workflow.signalWithStart(SYNC_WORKFLOW_TYPE, syncRetryOptions(input));
}

export async function describeSourceWorkflow(
  client: Client,
  sourceId: string,
): Promise<WorkflowExecutionDescription | undefined> {
  try {
    return await client.workflow.getHandle(sourceId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** The sync id a described execution runs: its CkgSyncId search attribute (kept current by the workflow), or memo. */
export function syncIdOf(d: WorkflowExecutionDescription): string | undefined {
  const fromAttribute = d.typedSearchAttributes.get(CKG_SYNC_ID);
  if (typeof fromAttribute === 'string') return fromAttribute;
  const memo = d.memo?.sync_id;
  return typeof memo === 'string' ? memo : undefined;
}

export interface RunningWorkflow {
  runId: string;
  syncId: string | undefined;
}

/** The source's workflow when it is running, undefined otherwise. */
export async function runningWorkflow(client: Client, sourceId: string): Promise<RunningWorkflow | undefined> {
  const d = await describeSourceWorkflow(client, sourceId);
  if (!d || d.status.name !== 'RUNNING') return undefined;
  return { runId: d.runId, syncId: syncIdOf(d) };
}

export async function signalCancel(client: Client, sourceId: string, runId: string, reason: string): Promise<void> {
  await client.workflow.getHandle(sourceId, runId).signal(cancelSignal, { reason });
}

/** Resolves true when the execution closes within `ms`, false otherwise. Never throws for the workflow's outcome. */
export async function waitForClose(client: Client, sourceId: string, runId: string, ms: number): Promise<boolean> {
  const handle = client.workflow.getHandle(sourceId, runId);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const closed = handle.result().then(
    () => true,
    // A failed, cancelled or terminated workflow has closed too.
    () => true,
  );
  try {
    return await Promise.race([closed, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export type StopOutcome = 'not_running' | 'cancelled' | 'terminated';

/**
 * Ends the source's running workflow: the cancel signal first (the workflow stops its activities and records the
 * run as cancelled), termination when it has not ended after `timeoutMs`.
 */
export async function stopSourceWorkflow(
  client: Client,
  sourceId: string,
  reason: string,
  timeoutMs: number,
): Promise<StopOutcome> {
  const running = await runningWorkflow(client, sourceId);
  if (!running) return 'not_running';
  try {
    await signalCancel(client, sourceId, running.runId, reason);
  } catch (err) {
    // It closed between describe and signal.
    if (err instanceof WorkflowNotFoundError) return 'not_running';
    throw err;
  }
  if (await waitForClose(client, sourceId, running.runId, timeoutMs)) return 'cancelled';
  try {
    await client.workflow.getHandle(sourceId, running.runId).terminate(reason);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'cancelled';
    throw err;
  }
  return 'terminated';
}
