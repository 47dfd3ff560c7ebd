/**
 * The OpenAPI 3.1 document of the ingestion component, served at GET /openapi.json (the gateway merges the
 * components' documents at /docs). It records every choice made where the spec says "not shown".
 */
import { errorResponse, json, nullableTimestamp, pathParam, ref, sharedSchemas, uuid } from '../../lib/openapi.ts';

const invalid = errorResponse('INVALID_ARGUMENT: a body field or path parameter is invalid; `field` names it.');
const notFound = errorResponse('NOT_FOUND: the sync, source or schedule does not exist.');
const unavailable = errorResponse(
  'UPSTREAM_UNAVAILABLE (with Retry-After): the Temporal service could not be reached; see each operation. Every ' +
    'Temporal-backed write first checks that Temporal answers (TEMPORAL_CONNECT_TIMEOUT_MS) and changes nothing ' +
    'when it does not.',
);
const scheduleUnavailable = errorResponse(
  'UPSTREAM_UNAVAILABLE (with Retry-After): the Temporal service could not be reached; nothing was changed. ' +
    'UNAVAILABLE (with Retry-After): another change of this schedule is still in progress.',
);
const syncId = pathParam('sync_id');
const scheduleId = pathParam('schedule_id', { type: 'integer', minimum: 1, format: 'int64' });
const sourceId = pathParam('source_id');
const syncResponse = (description: string) => ({ description, content: json(ref('Sync')) });

export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Code-knowledge graph: ingestion component',
      version: '1.0.0',
      description:
        'Sync and schedule writes (port 8081), turned into Temporal workflow and schedule calls. The workflow id of ' +
        'a sync is its source id (one active run per source); Temporal schedules are named after the repository, `sched-<owner>-<name>-<schedule id>`. ' +
        'State changes are reported as event rows on the SSE stream (`sync_lifecycle`, `schedule_changed`, ' +
        '`schedule_run_skipped`, `source_changed`).',
    },
    servers: [{ url: '/' }],
    tags: [{ name: 'syncs' }, { name: 'schedules' }, { name: 'ingest', description: 'Direct operator access.' }],
    paths: {
      '/health': {
        get: {
          summary: 'Liveness',
          responses: { 200: { description: 'ok', content: json(ref('Health')) } },
        },
      },
      '/openapi.json': { get: { summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1' } } } },
      '/api/syncs': {
        post: {
          tags: ['syncs'],
          summary: 'Create a sync of a source',
          description:
            'Inserts the run (status `pending`; config_snapshot = the source config with `config_overrides` merged ' +
            'over it key by key; ref = `ref` or the source default_branch) with its `sync_lifecycle` event, then ' +
            'starts workflow `syncWorkflow` (id = source id). When Temporal does not answer a first check, 503 and no ' +
            'run is created. When the start fails the run is marked `failed` with ' +
            'the error (and a lifecycle event) and the answer is 503 (or 409 when the previous run’s workflow is ' +
            'still closing after START_CONFLICT_WAIT_MS).',
          requestBody: { required: true, content: json(ref('CreateSync')) },
          responses: {
            201: syncResponse('The new run, status `pending`.'),
            400: invalid,
            404: notFound,
            409: errorResponse(
              'CONFLICT: the source has an active (pending or running) sync; `details.active_sync_id` names it. ' +
                'FAILED_PRECONDITION: the source is disabled.',
            ),
            503: unavailable,
          },
        },
      },
      '/api/syncs/{sync_id}/cancel': {
        post: {
          tags: ['syncs'],
          summary: 'Cancel an active sync',
          description:
            'Sends the workflow signal `cancel { reason }` to the workflow running this sync; the workflow stops its ' +
            'activities and records the run `cancelled` (error = reason). A run whose workflow never started or is ' +
            'gone is marked `cancelled` at once. The answer waits up to CANCEL_WAIT_MS (default 3 s) for the ' +
            'terminal status, then returns the run as it is: the status may still be `running`; clients follow ' +
            'the `sync_lifecycle` events.',
          parameters: [syncId],
          requestBody: { required: false, content: json(ref('CancelSync')) },
          responses: {
            200: syncResponse('The run (usually `cancelled`).'),
            400: invalid,
            404: notFound,
            409: errorResponse('FAILED_PRECONDITION: the sync is not pending or running.'),
            503: unavailable,
          },
        },
      },
      '/api/syncs/{sync_id}/retry': {
        post: {
          tags: ['syncs'],
          summary: 'Retry a failed or cancelled sync',
          description:
            'The run (same id) goes back to `pending`, its error, progress, stats, started_at and completed_at ' +
            'cleared, with a lifecycle event; then `retry { syncId }` is signalled-with-start to the source’s ' +
            'workflow, which runs it from scratch (removing its partial data first). No body.',
          parameters: [syncId],
          responses: {
            200: syncResponse('The run, status `pending`.'),
            400: invalid,
            404: notFound,
            409: errorResponse(
              'FAILED_PRECONDITION: the sync is not failed or cancelled, or its source is disabled. CONFLICT: the ' +
                'source has another active sync.',
            ),
            503: errorResponse('UPSTREAM_UNAVAILABLE: Temporal could not be reached; the run is marked failed again.'),
          },
        },
      },
      '/api/syncs/{sync_id}/embed': {
        post: {
          tags: ['syncs'],
          summary: 'Fill the missing vectors of a completed sync',
          description:
            'For a sync that completed while the model host was down (null vectors, `embedding_failed` / ' +
            '`embedding_unavailable` issues): starts workflow `fillVectorsWorkflow` (id `embed-<sync id>`; a fill ' +
            'already running for the sync is joined) which embeds the chunks without a vector from their stored text ' +
            'and the files without a vector from a depth-1 clone of the sync’s commit. Vectors are shared with every ' +
            'sync holding the same file content. When it ends, the run’s embedding issues are replaced, ' +
            '`stats.embeddings` recounted and a `sync_vectors_filled` event `{ sync_id, source_id, missing_before, ' +
            'missing_after }` written. No body. A new sync needs no fill: it embeds whatever its reused files lack.',
          parameters: [syncId],
          responses: {
            202: {
              description: 'Started (or joined); what is missing now.',
              content: json({
                type: 'object',
                required: ['sync_id', 'workflow_id', 'missing'],
                properties: {
                  sync_id: { type: 'string', format: 'uuid' },
                  workflow_id: { type: 'string' },
                  missing: {
                    type: 'object',
                    properties: { file_vectors: { type: 'integer' }, chunk_vectors: { type: 'integer' } },
                  },
                },
              }),
            },
            400: invalid,
            404: notFound,
            409: errorResponse('FAILED_PRECONDITION: the sync is not completed.'),
          },
        },
      },
      '/api/syncs/{sync_id}/clean': {
        post: {
          tags: ['syncs'],
          summary: 'Clean a completed or failed sync',
          description:
            'Status becomes `cleaned`; its graph vertices and edges are removed in the same transaction as the ' +
            'status change and its event (every label of the graph, and the per-sync graph tables); `cleaned_at` is ' +
            'set. File records and chunks are kept. Retention purges a cleaned sync that is not pinned ' +
            'RETENTION_PURGE_AFTER_SECONDS (default 3600) after its cleaning. No body.',
          parameters: [syncId],
          responses: {
            200: syncResponse('The run, status `cleaned`.'),
            400: invalid,
            404: notFound,
            409: errorResponse('FAILED_PRECONDITION: the sync is not completed or failed.'),
          },
        },
        delete: {
          tags: ['syncs'],
          summary: 'Clean a completed or failed sync (same as POST)',
          parameters: [syncId],
          responses: {
            200: syncResponse('The run, status `cleaned`.'),
            400: invalid,
            404: notFound,
            409: errorResponse('FAILED_PRECONDITION: the sync is not completed or failed.'),
          },
        },
      },
      '/api/syncs/{sync_id}/pin': {
        post: {
          tags: ['syncs'],
          summary: 'Pin a sync: retention keeps it',
          description:
            'Sets `pinned` (and `pinned_at`): the retention schedule never cleans or purges a pinned sync, whatever ' +
            'its age and the source’s `retention` counts (pins are kept besides the newest `keep_completed` and ' +
            '`keep_failed`). An operator can still clean or purge it. Any status. Pinning a pinned sync changes ' +
            'nothing. A change writes a `sync_pin_changed` event `{ sync_id, source_id, pinned, status }`. No body.',
          parameters: [syncId],
          responses: { 200: syncResponse('The run, `pinned: true`.'), 400: invalid, 404: notFound },
        },
        delete: {
          tags: ['syncs'],
          summary: 'Unpin a sync: retention treats it by its age again',
          parameters: [syncId],
          responses: { 200: syncResponse('The run, `pinned: false`.'), 400: invalid, 404: notFound },
        },
      },
      '/api/syncs/{sync_id}': {
        delete: {
          tags: ['syncs'],
          summary: 'Purge a sync',
          description:
            'Deletes the run and everything of it (files, chunks, issues, graph). An active run is cancelled first ' +
            '(signal; terminated after STOP_TIMEOUT_MS, default 10 s). Reported as a `sync_lifecycle` event with ' +
            'status `purged` (and `source_changed` when it was the source’s last sync).',
          parameters: [syncId],
          responses: { 204: { description: 'Purged.' }, 400: invalid, 404: notFound, 503: unavailable },
        },
      },
      '/api/schedules': {
        post: {
          tags: ['schedules'],
          summary: 'Create a schedule',
          description:
            'Creates the row and the Temporal schedule `sched-<owner>-<name>-<id>` (every interval_minutes minutes, aligned to the ' +
            'Unix epoch, overlap policy skip, paused when enabled=false). Each tick runs `scheduledSyncWorkflow`, ' +
            'which creates a run (triggered_by `schedule:<id>`, schedule_id set, config_overrides merged over the ' +
            'source config, ref = default_branch) and starts its sync workflow, or skips the tick (event ' +
            '`schedule_run_skipped`) when the source has an active sync or is disabled. next_run_at comes from ' +
            'Temporal; last_run_at is set when a scheduled run starts.',
          requestBody: { required: true, content: json(ref('CreateSchedule')) },
          responses: {
            201: { description: 'The schedule.', content: json(ref('Schedule')) },
            400: invalid,
            404: notFound,
            409: errorResponse(
              'CONFLICT: the source already has a schedule with this interval; `details.schedule_id`.',
            ),
            503: scheduleUnavailable,
          },
        },
      },
      '/api/schedules/{schedule_id}': {
        patch: {
          tags: ['schedules'],
          summary: 'Enable/disable (pause) a schedule, or change its interval or overrides',
          parameters: [scheduleId],
          requestBody: { required: true, content: json(ref('PatchSchedule')) },
          responses: {
            200: { description: 'The schedule.', content: json(ref('Schedule')) },
            400: invalid,
            404: notFound,
            409: errorResponse('CONFLICT: another schedule of the source has this interval.'),
            503: scheduleUnavailable,
          },
        },
        delete: {
          tags: ['schedules'],
          summary: 'Delete a schedule and its Temporal schedule',
          description: 'Past runs keep their data; their schedule_id becomes null.',
          parameters: [scheduleId],
          responses: { 204: { description: 'Deleted.' }, 400: invalid, 404: notFound, 503: scheduleUnavailable },
        },
      },
      '/ingest/sources/{source_id}': {
        delete: {
          tags: ['ingest'],
          summary: 'Tear down a source’s Temporal state (before the source is deleted)',
          description:
            'Deletes the source’s Temporal schedules, cancels its running workflow (terminated after ' +
            'STOP_TIMEOUT_MS) and marks a still-active run `cancelled` (error `source deleted`). Rows are left to ' +
            'the caller (the graph component deletes the source). Idempotent; an unknown source is fine. ' +
            'Internal: the graph component calls it on source deletion; the gateway does not route it ' +
            '(docs/security.md).',
          parameters: [sourceId],
          responses: { 204: { description: 'Torn down.' }, 400: invalid, 503: unavailable },
        },
      },
      '/ingest/webhooks/{provider}': {
        post: {
          tags: ['ingest'],
          summary: 'A code host’s webhook delivery (push, pull/merge request)',
          description:
            'No bearer token: the delivery is authenticated by the host’s signature against the source’s ' +
            '`webhook_secret` (GitHub `X-Hub-Signature-256`, Gitea/Forgejo `X-Gitea-Signature`, GitLab ' +
            '`X-Gitlab-Token`). The source is found by the repository the payload names (owner/name, or a clone URL ' +
            'equal to the source’s url). A push on the tracked branch, or a pull/merge request opened, reopened or ' +
            'updated, queues a sync (202 at once; pushes that arrive while a sync runs coalesce into one sync of the ' +
            'newest commit); a closed/merged request cleans its syncs; other events 202 with the reason; a repeated ' +
            'delivery id 202 `duplicate`. Body: JSON only, at most 5 MB. See docs/webhooks.md.',
          parameters: [
            {
              name: 'provider',
              in: 'path',
              required: true,
              schema: { type: 'string', enum: ['github', 'gitlab', 'gitea'] },
            },
          ],
          security: [],
          responses: {
            202: {
              description:
                'Acknowledged: `results` says, per matching source, accepted / closed / ignored / duplicate.',
              content: json({ type: 'object' }),
            },
            400: invalid,
            401: errorResponse('UNAUTHORIZED: the signature header is missing or does not match.'),
            404: errorResponse('NOT_FOUND: unknown provider, or no source with a webhook secret for the repository.'),
          },
        },
      },
      '/ingest/workflows/{source_id}': {
        get: {
          tags: ['ingest'],
          summary: 'The Temporal state of a source’s sync workflow (latest execution)',
          parameters: [sourceId],
          responses: {
            200: { description: 'Workflow description.', content: json(ref('WorkflowState')) },
            400: invalid,
            404: errorResponse('NOT_FOUND: Temporal knows no workflow for this source.'),
          },
        },
      },
      '/ingest/schedules/{schedule_id}': {
        get: {
          tags: ['ingest'],
          summary: 'A schedule row next to its Temporal schedule',
          parameters: [scheduleId],
          responses: {
            200: { description: 'Row and Temporal state.', content: json(ref('ScheduleState')) },
            400: invalid,
            404: notFound,
          },
        },
      },
    },
    components: {
      schemas: {
        ...sharedSchemas,
        CreateSync: {
          type: 'object',
          required: ['source_id'],
          additionalProperties: false,
          properties: {
            source_id: uuid,
            triggered_by: { type: 'string', minLength: 1, maxLength: 200, default: 'api' },
            ref: {
              type: 'string',
              maxLength: 255,
              description:
                "Git branch, tag, ref or commit id (git check-ref-format rules; never starting with '-', else 400); " +
                'default the source default_branch.',
            },
            config_overrides: {
              type: 'object',
              description:
                'Merged over the source config (top-level keys). Checked keys: include_paths (list of strings), ' +
                'embeddings (boolean; false skips embedding), incremental (boolean; false forces a full sync that ' +
                'reuses nothing from the previous completed sync), symbol_graph (boolean; false leaves out the ' +
                'symbol graph: symbols keep their keys, no calls/inherits/implements/overrides/references edges).',
            },
          },
        },
        CancelSync: {
          type: 'object',
          additionalProperties: false,
          properties: { reason: { type: 'string', minLength: 1, maxLength: 1000, default: 'cancelled by request' } },
        },
        CreateSchedule: {
          type: 'object',
          required: ['source_id', 'interval_minutes'],
          additionalProperties: false,
          properties: {
            source_id: uuid,
            interval_minutes: { type: 'integer', minimum: 1, maximum: 525600 },
            config_overrides: { type: 'object', default: {} },
            enabled: { type: 'boolean', default: true },
          },
        },
        PatchSchedule: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: {
            enabled: { type: 'boolean', description: 'false pauses the Temporal schedule; true resumes it.' },
            interval_minutes: { type: 'integer', minimum: 1, maximum: 525600 },
            config_overrides: { type: 'object', description: 'Replaces the schedule’s overrides.' },
          },
        },
        WorkflowState: {
          type: 'object',
          properties: {
            workflow_id: { type: 'string' },
            run_id: { type: 'string' },
            type: { type: 'string' },
            status: { type: 'string', examples: ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED'] },
            task_queue: { type: 'string' },
            sync_id: { type: ['string', 'null'] },
            source: { type: ['string', 'null'], description: 'owner/name' },
            triggered_by: { type: ['string', 'null'] },
            start_time: { type: 'string', format: 'date-time' },
            close_time: nullableTimestamp,
            history_length: { type: 'integer' },
            memo: { type: 'object' },
          },
        },
        ScheduleState: {
          type: 'object',
          properties: {
            schedule: ref('Schedule'),
            temporal: {
              type: 'object',
              properties: {
                schedule_id: { type: 'string' },
                missing: { type: 'boolean' },
                paused: { type: 'boolean' },
                note: { type: ['string', 'null'] },
                next_action_times: { type: 'array', items: { type: 'string', format: 'date-time' } },
                next_run_at: nullableTimestamp,
                recent_actions: { type: 'array', items: { type: 'object' } },
                running_workflows: { type: 'array', items: { type: 'string' } },
              },
            },
          },
        },
      },
    },
  };
}
