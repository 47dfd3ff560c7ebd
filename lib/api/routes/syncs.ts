/**
 * The sync routes, declared once (lib/api/route.ts): the ingestion component's commands (create, cancel, retry,
 * embed, clean, pin, purge) and the graph component's reads (list, one, issues). Each component mounts the ones it
 * serves; its OpenAPI document and the client (lib/api/client.ts) derive from these declarations.
 */
import { z } from 'zod';
import { checkSyncConfig } from '../../sync-config.ts';
import { SYNC_STATUSES } from '../../sync-runs/types.ts';
import { gitRef, jsonObject, page, path, query, text, uuid } from '../fields.ts';
import { route } from '../route.ts';
import {
  errorReply,
  INVALID_FIELD,
  INVALID_PARAMETER,
  NOT_FOUND,
  NOT_FOUND_RUN,
  TEMPORAL_UNAVAILABLE,
} from './errors.ts';
import { Sync, nullableTimestamp, pageOf, uuid as uuidOut } from '../schemas.ts';

export const DEFAULT_TRIGGERED_BY = 'api';
export const DEFAULT_CANCEL_REASON = 'cancelled by request';

const syncParams = { sync_id: path.uuid() };

/** config_overrides of a sync or schedule: merged over the source config; the keys lib/sync-config.ts knows checked. */
export const configOverrides = (description: string) =>
  jsonObject({
    field: 'config_overrides',
    check: (v) => checkSyncConfig(v, 'config_overrides'),
    description,
  }).optional();

export const CreateSync = z
  .strictObject({
    source_id: uuid(),
    triggered_by: text({ max: 200 }).meta({ default: DEFAULT_TRIGGERED_BY }),
    ref: gitRef(
      "Git branch, tag, ref or commit id (git check-ref-format rules; never starting with '-', else 400); " +
        'default the source default_branch.',
    ),
    config_overrides: configOverrides(
      'Merged over the source config (top-level keys). Checked keys: include_paths (list of strings), ' +
        'embeddings (boolean; false skips embedding), incremental (boolean; false forces a full sync that ' +
        'reuses nothing from the previous completed sync), symbol_graph (boolean; false leaves out the ' +
        'symbol graph: symbols keep their keys, no calls/inherits/implements/overrides/references edges).',
    ),
  })
  .meta({ id: 'CreateSync' });
export type CreateSync = z.input<typeof CreateSync>;

export const CancelSync = z
  .strictObject({ reason: text({ max: 1000 }).meta({ default: DEFAULT_CANCEL_REASON }) })
  .meta({ id: 'CancelSync' });

/** A body-less command: an absent body or `{}`. */
const NoBody = z.strictObject({});

export const EmbedAccepted = z.object({
  sync_id: uuidOut(),
  workflow_id: z.string(),
  missing: z.object({ file_vectors: z.int(), chunk_vectors: z.int() }),
});
export type EmbedAccepted = z.infer<typeof EmbedAccepted>;

export const ISSUE_LEVELS = ['info', 'warning', 'error'] as const;

export const Issue = z
  .object({
    id: z.int(),
    sync_id: uuidOut(),
    level: z.enum(ISSUE_LEVELS),
    phase: z.string(),
    code: z.string(),
    message: z.string(),
    context: z.unknown(),
    occurred_at: nullableTimestamp(),
  })
  .meta({ id: 'Issue' });
export type Issue = z.infer<typeof Issue>;

const tags = ['syncs'];

export const createSync = route({
  method: 'POST',
  path: '/api/syncs',
  tags,
  summary: 'Create a sync of a source',
  description:
    'Inserts the run (status `pending`; config_snapshot = the source config with `config_overrides` merged ' +
    'over it key by key; ref = `ref` or the source default_branch) with its `sync_lifecycle` event, then ' +
    'starts workflow `syncWorkflow` (id = source id). When Temporal does not answer a first check, 503 and no ' +
    'run is created. When the start fails the run is marked `failed` with ' +
    'the error (and a lifecycle event) and the answer is 503 (or 409 when the previous run’s workflow is ' +
    'still closing after START_CONFLICT_WAIT_MS).',
  body: { schema: CreateSync, required: true },
  success: { status: 201, description: 'The new run, status `pending`.', schema: Sync },
  responses: {
    400: INVALID_FIELD,
    404: NOT_FOUND_RUN,
    409: errorReply(
      'CONFLICT: the source has an active (pending or running) sync; `details.active_sync_id` names it. ' +
        'FAILED_PRECONDITION: the source is disabled.',
    ),
    503: TEMPORAL_UNAVAILABLE,
  },
});

export const cancelSync = route({
  method: 'POST',
  path: '/api/syncs/{sync_id}/cancel',
  tags,
  summary: 'Cancel an active sync',
  description:
    'Sends the workflow signal `cancel { reason }` to the workflow running this sync; the workflow stops its ' +
    'activities and records the run `cancelled` (error = reason). A run whose workflow never started or is ' +
    'gone is marked `cancelled` at once. The answer waits up to CANCEL_WAIT_MS (default 3 s) for the ' +
    'terminal status, then returns the run as it is: the status may still be `running`; clients follow ' +
    'the `sync_lifecycle` events.',
  params: syncParams,
  body: { schema: CancelSync, required: false },
  success: { status: 200, description: 'The run (usually `cancelled`).', schema: Sync },
  responses: {
    400: INVALID_FIELD,
    404: NOT_FOUND_RUN,
    409: errorReply('FAILED_PRECONDITION: the sync is not pending or running.'),
    503: TEMPORAL_UNAVAILABLE,
  },
});

export const retrySync = route({
  method: 'POST',
  path: '/api/syncs/{sync_id}/retry',
  tags,
  summary: 'Retry a failed or cancelled sync',
  description:
    'The run (same id) goes back to `pending`, its error, progress, stats, started_at and completed_at ' +
    'cleared, with a lifecycle event; then `retry { syncId }` is signalled-with-start to the source’s ' +
    'workflow, which runs it from scratch (removing its partial data first). No body.',
  params: syncParams,
  body: { schema: NoBody, required: false },
  success: { status: 200, description: 'The run, status `pending`.', schema: Sync },
  responses: {
    400: INVALID_FIELD,
    404: NOT_FOUND_RUN,
    409: errorReply(
      'FAILED_PRECONDITION: the sync is not failed or cancelled, or its source is disabled. CONFLICT: the ' +
        'source has another active sync.',
    ),
    503: errorReply('UPSTREAM_UNAVAILABLE: Temporal could not be reached; the run is marked failed again.'),
  },
});

export const embedSync = route({
  method: 'POST',
  path: '/api/syncs/{sync_id}/embed',
  tags,
  summary: 'Fill the missing vectors of a completed sync',
  description:
    'For a sync that completed while the model host was down (null vectors, `embedding_failed` / ' +
    '`embedding_unavailable` issues): starts workflow `fillVectorsWorkflow` (id `embed-<sync id>`; a fill ' +
    'already running for the sync is joined) which embeds the chunks without a vector from their stored text ' +
    'and the files without a vector from a depth-1 clone of the sync’s commit. Vectors are shared with every ' +
    'sync holding the same file content. When it ends, the run’s embedding issues are replaced, ' +
    '`stats.embeddings` recounted and a `sync_vectors_filled` event `{ sync_id, source_id, missing_before, ' +
    'missing_after }` written. No body. A new sync needs no fill: it embeds whatever its reused files lack.',
  params: syncParams,
  body: { schema: NoBody, required: false },
  success: { status: 202, description: 'Started (or joined); what is missing now.', schema: EmbedAccepted },
  responses: {
    400: INVALID_FIELD,
    404: NOT_FOUND_RUN,
    409: errorReply('FAILED_PRECONDITION: the sync is not completed.'),
  },
});

const cleanDoc = {
  tags,
  params: syncParams,
  success: { status: 200, description: 'The run, status `cleaned`.', schema: Sync },
  responses: {
    400: INVALID_FIELD,
    404: NOT_FOUND_RUN,
    409: errorReply('FAILED_PRECONDITION: the sync is not completed or failed.'),
  },
};

export const cleanSync = route({
  method: 'POST',
  path: '/api/syncs/{sync_id}/clean',
  summary: 'Clean a completed or failed sync',
  description:
    'Status becomes `cleaned`; its graph vertices and edges are removed in the same transaction as the ' +
    'status change and its event (every label of the graph, and the per-sync graph tables); `cleaned_at` is ' +
    'set. File records and chunks are kept. Retention purges a cleaned sync that is not pinned ' +
    'RETENTION_PURGE_AFTER_SECONDS (default 3600) after its cleaning. No body.',
  ...cleanDoc,
});

export const cleanSyncDelete = route({
  method: 'DELETE',
  path: '/api/syncs/{sync_id}/clean',
  summary: 'Clean a completed or failed sync (same as POST)',
  ...cleanDoc,
});

export const pinSync = route({
  method: 'POST',
  path: '/api/syncs/{sync_id}/pin',
  tags,
  summary: 'Pin a sync: retention keeps it',
  description:
    'Sets `pinned` (and `pinned_at`): the retention schedule never cleans or purges a pinned sync, whatever ' +
    'its age and the source’s `retention` counts (pins are kept besides the newest `keep_completed` and ' +
    '`keep_failed`). An operator can still clean or purge it. Any status. Pinning a pinned sync changes ' +
    'nothing. A change writes a `sync_pin_changed` event `{ sync_id, source_id, pinned, status }`. No body.',
  params: syncParams,
  body: { schema: NoBody, required: false },
  success: { status: 200, description: 'The run, `pinned: true`.', schema: Sync },
  responses: { 400: INVALID_FIELD, 404: NOT_FOUND_RUN },
});

export const unpinSync = route({
  method: 'DELETE',
  path: '/api/syncs/{sync_id}/pin',
  tags,
  summary: 'Unpin a sync: retention treats it by its age again',
  params: syncParams,
  success: { status: 200, description: 'The run, `pinned: false`.', schema: Sync },
  responses: { 400: INVALID_FIELD, 404: NOT_FOUND_RUN },
});

export const purgeSync = route({
  method: 'DELETE',
  path: '/api/syncs/{sync_id}',
  tags,
  summary: 'Purge a sync',
  description:
    'Deletes the run and everything of it (files, chunks, issues, graph). An active run is cancelled first ' +
    '(signal; terminated after STOP_TIMEOUT_MS, default 10 s). Reported as a `sync_lifecycle` event with ' +
    'status `purged` (and `source_changed` when it was the source’s last sync). A sync whose graph other ' +
    'syncs share (unchanged re-syncs of its commit) is purged after them: 409 naming them in ' +
    '`details.shared_by` until then.',
  params: syncParams,
  success: { status: 204, description: 'Purged.' },
  responses: {
    400: INVALID_FIELD,
    404: NOT_FOUND_RUN,
    409: errorReply('FAILED_PRECONDITION: other syncs share this sync’s graph (details.shared_by): purge those first.'),
    503: TEMPORAL_UNAVAILABLE,
  },
});

/** The sync commands the ingestion component serves. */
export const SYNC_COMMANDS = [
  createSync,
  cancelSync,
  retrySync,
  embedSync,
  cleanSync,
  cleanSyncDelete,
  pinSync,
  unpinSync,
  purgeSync,
] as const;

// ---------------------------------------------------------------------------------------------------------- reads

export const listSyncs = route({
  method: 'GET',
  path: '/api/syncs',
  summary: 'List sync runs',
  query: {
    source_id: query.uuid('Only runs of this source.'),
    status: query.enum('Only this status.', SYNC_STATUSES),
    ...page('uuid'),
  },
  success: { status: 200, description: 'A page of runs', schema: pageOf(Sync) },
  responses: { 400: INVALID_PARAMETER },
});

export const getSync = route({
  method: 'GET',
  path: '/api/syncs/{sync_id}',
  summary: 'One sync run',
  params: syncParams,
  success: { status: 200, description: 'The run', schema: Sync },
  responses: { 400: INVALID_PARAMETER, 404: NOT_FOUND },
});

export const listIssues = route({
  method: 'GET',
  path: '/api/syncs/{sync_id}/issues',
  summary: 'Issues of a sync, oldest first',
  params: syncParams,
  query: {
    level: query.enum('Only this level.', ISSUE_LEVELS),
    phase: query.string('Only this phase.', { maxLength: 100 }),
    ...page('bigint'),
  },
  success: { status: 200, description: 'A page of issues', schema: pageOf(Issue) },
  responses: { 400: INVALID_PARAMETER, 404: NOT_FOUND },
});

/** The sync reads the graph component serves. */
export const SYNC_READS = [listSyncs, getSync, listIssues] as const;
