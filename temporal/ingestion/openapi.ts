/**
 * The OpenAPI 3.1 document of the ingestion component, served at GET /openapi.json (the gateway merges the
 * components' documents at /docs). It records every choice made where the spec says "not shown".
 */
import { pathsOf } from '../../lib/api/openapi.ts';
import { SCHEDULE_COMMANDS } from '../../lib/api/routes/schedules.ts';
import { SYNC_COMMANDS } from '../../lib/api/routes/syncs.ts';
import { errorResponse, json, nullableTimestamp, pathParam, ref, sharedSchemas } from '../../lib/openapi.ts';

const invalid = errorResponse('INVALID_ARGUMENT: a body field or path parameter is invalid; `field` names it.');
const notFound = errorResponse('NOT_FOUND: the sync, source or schedule does not exist.');
const unavailable = errorResponse(
  'UPSTREAM_UNAVAILABLE (with Retry-After): the Temporal service could not be reached; see each operation. Every ' +
    'Temporal-backed write first checks that Temporal answers (TEMPORAL_CONNECT_TIMEOUT_MS) and changes nothing ' +
    'when it does not.',
);
const scheduleId = pathParam('schedule_id', { type: 'integer', minimum: 1, format: 'int64' });
const sourceId = pathParam('source_id');

/** The operations not declared as routes yet (lib/api/routes/): written by hand. */
const HAND_WRITTEN_PATHS = {
  '/health': {
    get: {
      summary: 'Liveness',
      responses: { 200: { description: 'ok', content: json(ref('Health')) } },
    },
  },
  '/openapi.json': { get: { summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1' } } } },
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
          description: 'Acknowledged: `results` says, per matching source, accepted / closed / ignored / duplicate.',
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
};

/** The request and state schemas of those operations. */
const HAND_WRITTEN_SCHEMAS = {
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
};

export function openApiDocument(): Record<string, unknown> {
  const schemas: Record<string, unknown> = { ...sharedSchemas, ...HAND_WRITTEN_SCHEMAS };
  const paths = pathsOf([...SYNC_COMMANDS, ...SCHEDULE_COMMANDS], schemas, HAND_WRITTEN_PATHS);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Code-knowledge graph: ingestion component',
      version: '1.0.0',
      description:
        'Sync and schedule writes (port 8081), turned into Temporal workflow and schedule calls. The workflow id of ' +
        'a sync is its source id (one active run per source); Temporal schedules are named after the repository, ' +
        '`sched-<owner>-<name>-<schedule id>`. ' +
        'State changes are reported as event rows on the SSE stream (`sync_lifecycle`, `schedule_changed`, ' +
        '`schedule_run_skipped`, `source_changed`).',
    },
    servers: [{ url: '/' }],
    tags: [{ name: 'syncs' }, { name: 'schedules' }, { name: 'ingest', description: 'Direct operator access.' }],
    paths,
    components: { schemas },
  };
}
