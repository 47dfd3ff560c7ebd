/**
 * The sync workflow's contract with its callers (the ingestion component, the schedules' trigger, tests,
 * benchmarks, an operator in the Temporal UI): its signals and query, by definition, so nobody sends them by string.
 * Pure: workflow code and clients both import it.
 *
 * Signals, as typed into the Temporal UI's Send Signal dialog (signal name, then the JSON input):
 *   cancel  {"reason": "asked by alice"}              the run ends cancelled with that error (reason optional)
 *   retry   {"syncId": "<uuid of a failed or cancelled run of this source>"}
 * Query:
 *   progress                                         {"syncId", "phase", "done", "total"}
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { SyncProgress } from './sync-types.ts';

export const cancelSignal = defineSignal<[{ reason?: string }]>('cancel');
export const retrySignal = defineSignal<[{ syncId: string }]>('retry');
export const progressQuery = defineQuery<SyncProgress>('progress');

/** Files per batch of the parse and write steps: the spec's write batch of 500. */
export const BATCH_FILES = 500;
