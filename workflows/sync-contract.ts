/**
 * The sync workflow's contract with everyone who starts, signals or queries it (the ingestion component, the
 * schedules' trigger workflow, tests, benchmarks, an operator in the Temporal UI), in one place: its type name, its
 * one input type, the start options, the search attributes, its signals and its query. Pure (only Temporal's
 * workflow/common packages), so workflow code and clients import the same definitions; nobody sends a signal by
 * string.
 *
 * Signals, as typed into the Temporal UI's Send Signal dialog (signal name, then the JSON input):
 *   cancel  {"reason": "asked by alice"}        the run ends cancelled with that error (reason optional: an empty
 *                                               input, null or {} cancel with "cancelled by request")
 *   retry   {"syncId": "<uuid>"}                a failed or cancelled run of this source runs again (queued behind
 *                                               the run in progress: progress_meta.phase "queued")
 * Any other input (wrong types, a syncId that is not a UUID or no failed/cancelled run of this source) is rejected:
 * logged, recorded as a `signal_rejected` event, and ignored (parseCancelInput, parseRetryInput).
 * Query:
 *   progress                                   {"syncId", "phase", "done", "total"}
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import {
  ApplicationFailure,
  defineSearchAttributeKey,
  SearchAttributeType,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  type SearchAttributePair,
} from '@temporalio/common';
import type { SyncIds, SyncProgress, SyncWorkflowResult } from './sync-types.ts';

export const SYNC_WORKFLOW_TYPE = 'syncWorkflow';
export const SCHEDULED_SYNC_WORKFLOW_TYPE = 'scheduledSyncWorkflow';
/**
 * The failure type of a sync workflow whose last run failed (a failed workflow execution; its details hold the
 * SyncWorkflowResult).
 */
export const SYNC_FAILED = 'SyncFailed';
/**
 * The failure type of a schedules' trigger workflow whose sync could not be started (its run is failed; details: the
 * trigger's result), so Temporal's own Failed filter finds that failed sync too.
 */
export const SYNC_NOT_STARTED = 'SyncNotStarted';

export const cancelSignal = defineSignal<[{ reason?: string }]>('cancel');
export const retrySignal = defineSignal<[{ syncId: string }]>('retry');

/** A signal's input as the workflow checked it: what to act on, or why it is ignored. */
export type SignalCheck<T> = { ok: true; value: T } | { ok: false; reason: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The cancel signal's reason: none (empty input, null, {}) is the default reason; a reason must be a string. */
export function parseCancelInput(input: unknown): SignalCheck<{ reason: string | null }> {
  if (input === undefined || input === null) return { ok: true, value: { reason: null } };
  if (!isRecord(input))
    return { ok: false, reason: 'the input must be a JSON object like {"reason": "asked by alice"}' };
  const reason = input.reason;
  if (reason === undefined || reason === null) return { ok: true, value: { reason: null } };
  if (typeof reason !== 'string') return { ok: false, reason: '"reason" must be a string' };
  return { ok: true, value: { reason: reason.trim().slice(0, 1000) || null } };
}

/** The retry signal's sync id: the input must be {"syncId": "<uuid>"}. */
export function parseRetryInput(input: unknown): SignalCheck<{ syncId: string }> {
  if (!isRecord(input)) return { ok: false, reason: 'the input must be a JSON object like {"syncId": "<uuid>"}' };
  const syncId = input.syncId;
  if (typeof syncId !== 'string')
    return { ok: false, reason: '"syncId" must be a string (the id of a failed or cancelled sync)' };
  if (!UUID.test(syncId)) return { ok: false, reason: '"syncId" is not a UUID' };
  return { ok: true, value: { syncId: syncId.toLowerCase() } };
}

/** A signal input as recorded with its rejection: JSON, at most 500 characters. */
export function signalInputPreview(input: unknown): string {
  if (input === undefined) return '(no input)';
  // A signal's input came as JSON, so it is JSON again (a function or symbol cannot come through a payload).
  const text = JSON.stringify(input) ?? `(${typeof input})`;
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

export const progressQuery = defineQuery<SyncProgress>('progress');

/**
 * Files per batch of the parse and write steps: the spec's write batch of 500, the default of the worker's
 * SYNC_BATCH_FILES. The worker cuts the batches and returns their bounds (CloneResult.bounds); the workflow uses this
 * only for a run whose clone returned none (a history from before bounds).
 */
export const BATCH_FILES = 500;

/**
 * Custom search attributes (Keyword; registered on the dev server by scripts/stack/temporal.sh and in compose by the
 * temporal-setup service), so the UI lists "failed syncs of acme/*":
 * `CkgSourceOwner = 'acme' AND CkgSyncStatus = 'failed'`.
 */
export const CKG_SOURCE_ID = defineSearchAttributeKey('CkgSourceId', SearchAttributeType.KEYWORD);
export const CKG_SOURCE_OWNER = defineSearchAttributeKey('CkgSourceOwner', SearchAttributeType.KEYWORD);
/** `owner/name`. */
export const CKG_SOURCE_NAME = defineSearchAttributeKey('CkgSourceName', SearchAttributeType.KEYWORD);
export const CKG_SYNC_ID = defineSearchAttributeKey('CkgSyncId', SearchAttributeType.KEYWORD);
export const CKG_TRIGGER = defineSearchAttributeKey('CkgTrigger', SearchAttributeType.KEYWORD);
/**
 * How the execution's last run ended, as the database says: completed | failed | cancelled | skipped, set by the
 * workflow when the run ends. Never pending or running (unset while a run is active: ExecutionStatus says Running),
 * so no closed execution can keep an active value: one Temporal closed without running workflow code (Terminate, a
 * timeout, the execution a Reset replaced) has none, and its ExecutionStatus says how it ended.
 */
export const CKG_SYNC_STATUS = defineSearchAttributeKey('CkgSyncStatus', SearchAttributeType.KEYWORD);

/** Every custom search attribute, for the scripts that register them. */
export const SEARCH_ATTRIBUTES = [
  CKG_SOURCE_ID,
  CKG_SOURCE_OWNER,
  CKG_SOURCE_NAME,
  CKG_SYNC_ID,
  CKG_TRIGGER,
  CKG_SYNC_STATUS,
] as const;

export interface SyncStartInput extends SyncIds {
  /** `owner/name` of the source. */
  sourceName: string;
  /** The ref the run syncs (branch, tag or commit). */
  ref: string;
  /** The run's triggered_by (a user, `schedule:<id>`, `api`). */
  trigger: string;
  taskQueue: string;
}

function ownerOf(sourceName: string): string {
  const slash = sourceName.indexOf('/');
  return slash > 0 ? sourceName.slice(0, slash) : sourceName;
}

/** What every start of the sync workflow carries: id = source id, input, search attributes, memo, UI metadata. */
export function syncWorkflowOptions(input: SyncStartInput) {
  const args: [SyncIds] = [{ syncId: input.syncId, sourceId: input.sourceId }];
  const typedSearchAttributes: SearchAttributePair[] = [
    { key: CKG_SOURCE_ID, value: input.sourceId },
    { key: CKG_SOURCE_OWNER, value: ownerOf(input.sourceName) },
    { key: CKG_SOURCE_NAME, value: input.sourceName },
    { key: CKG_SYNC_ID, value: input.syncId },
    { key: CKG_TRIGGER, value: input.trigger.slice(0, 200) },
  ];
  return {
    workflowId: input.sourceId,
    taskQueue: input.taskQueue,
    args,
    typedSearchAttributes,
    memo: {
      source_id: input.sourceId,
      source: input.sourceName,
      sync_id: input.syncId,
      ref: input.ref,
      triggered_by: input.trigger,
    },
    staticSummary: `sync ${input.sourceName} @ ${input.ref} (${input.trigger})`,
    staticDetails: [
      `**source** ${input.sourceName} (\`${input.sourceId}\`)`,
      `**ref** ${input.ref}`,
      `**sync id** \`${input.syncId}\``,
      `**trigger** ${input.trigger}`,
    ].join('\n\n'),
  };
}

/** Options for `client.workflow.start(SYNC_WORKFLOW_TYPE, ...)`: one active workflow per source. */
export function syncStartOptions(input: SyncStartInput) {
  return {
    ...syncWorkflowOptions(input),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  };
}

/** Options for `client.workflow.signalWithStart(SYNC_WORKFLOW_TYPE, ...)`: retry of a run of the source. */
export function syncRetryOptions(input: SyncStartInput) {
  return {
    ...syncWorkflowOptions(input),
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    signal: retrySignal,
    signalArgs: [{ syncId: input.syncId }] as [{ syncId: string }],
  };
}

/**
 * The result of a sync workflow from its handle's `result()`, whether it completed or failed: a failed sync is a failed
 * workflow execution whose failure (type SYNC_FAILED) carries the result as its details. Other failures are thrown.
 */
export async function syncWorkflowResult(result: Promise<unknown>): Promise<SyncWorkflowResult> {
  try {
    return (await result) as SyncWorkflowResult;
  } catch (err) {
    const cause = err instanceof Error ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === SYNC_FAILED && cause.details?.[0]) {
      return cause.details[0] as SyncWorkflowResult;
    }
    throw err;
  }
}
