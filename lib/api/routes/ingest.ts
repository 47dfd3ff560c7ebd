/**
 * /ingest/*, declared once (lib/api/route.ts): direct access for operators and for the graph component (a source's
 * teardown, a workflow's and a schedule's Temporal state), and the code hosts' webhook deliveries
 * (docs/webhooks.md). The ingestion component mounts them (temporal/ingestion/ingest/, webhooks/); its document and
 * the client's types derive from these.
 */
import { z } from 'zod';
import { path } from '../fields.ts';
import { route } from '../route.ts';
import { errorReply, INVALID_FIELD, NOT_FOUND_RUN, TEMPORAL_UNAVAILABLE } from './errors.ts';
import { Schedule, nullableTimestamp, timestamp, uuid } from '../schemas.ts';

const tags = ['ingest'];
const sourceParams = { source_id: path.uuid() };

/** The code hosts whose webhook deliveries the service reads (temporal/ingestion/webhooks/providers.ts). */
export const PROVIDERS = ['github', 'gitlab', 'gitea'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const WorkflowState = z
  .object({
    workflow_id: z.string(),
    run_id: z.string(),
    type: z.string(),
    status: z.string().meta({ examples: ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED'] }),
    task_queue: z.string(),
    sync_id: z.string().nullable(),
    source: z.string().nullable().describe('owner/name'),
    triggered_by: z.string().nullable(),
    start_time: timestamp(),
    close_time: nullableTimestamp(),
    history_length: z.int(),
    memo: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WorkflowState' });
export type WorkflowState = z.infer<typeof WorkflowState>;

export const ScheduleState = z
  .object({
    schedule: Schedule,
    temporal: z.object({
      schedule_id: z.string(),
      missing: z.boolean().optional().describe('true when Temporal has no schedule of this id.'),
      paused: z.boolean().optional(),
      note: z.string().nullable().optional(),
      next_action_times: z.array(timestamp()).optional(),
      next_run_at: nullableTimestamp().optional(),
      recent_actions: z
        .array(
          z.object({ scheduled_at: timestamp(), taken_at: timestamp(), workflow_id: z.string(), run_id: z.string() }),
        )
        .optional(),
      running_workflows: z.array(z.string()).optional(),
    }),
  })
  .meta({ id: 'ScheduleState' });
export type ScheduleState = z.infer<typeof ScheduleState>;

/** What a webhook delivery did for one source it names. */
export const WebhookResult = z.object({
  source_id: uuid(),
  status: z.enum(['accepted', 'closed', 'ignored', 'duplicate']),
  ref: z.string().optional().describe('accepted: the branch or pull request ref synced.'),
  commit: z.string().nullable().optional().describe('accepted: the commit, when the delivery names it.'),
  pr_number: z.int().optional().describe('accepted (a pull/merge request) and closed.'),
  syncs: z.int().optional().describe('closed: the pull request syncs cleaned.'),
  reason: z.string().optional().describe('ignored: why.'),
});
export type WebhookResult = z.infer<typeof WebhookResult>;

export const WebhookAck = z
  .object({ delivery_id: z.string(), event: z.string(), results: z.array(WebhookResult) })
  .meta({ id: 'WebhookAck' });
export type WebhookAck = z.infer<typeof WebhookAck>;

export const teardownSource = route({
  method: 'DELETE',
  path: '/ingest/sources/{source_id}',
  tags,
  summary: 'Tear down a source’s Temporal state (before the source is deleted)',
  description:
    'Deletes the source’s Temporal schedules, cancels its running workflow (terminated after ' +
    'STOP_TIMEOUT_MS) and marks a still-active run `cancelled` (error `source deleted`). Rows are left to ' +
    'the caller (the graph component deletes the source). Idempotent; an unknown source is fine. ' +
    'Internal: the graph component calls it on source deletion; the gateway does not route it ' +
    '(docs/security.md).',
  params: sourceParams,
  success: { status: 204, description: 'Torn down.' },
  responses: { 400: INVALID_FIELD, 503: TEMPORAL_UNAVAILABLE },
});

export const getWorkflowState = route({
  method: 'GET',
  path: '/ingest/workflows/{source_id}',
  tags,
  summary: 'The Temporal state of a source’s sync workflow (latest execution)',
  params: sourceParams,
  success: { status: 200, description: 'Workflow description.', schema: WorkflowState },
  responses: { 400: INVALID_FIELD, 404: errorReply('NOT_FOUND: Temporal knows no workflow for this source.') },
});

export const getScheduleState = route({
  method: 'GET',
  path: '/ingest/schedules/{schedule_id}',
  tags,
  summary: 'A schedule row next to its Temporal schedule',
  params: { schedule_id: path.bigint() },
  success: { status: 200, description: 'Row and Temporal state.', schema: ScheduleState },
  responses: { 400: INVALID_FIELD, 404: NOT_FOUND_RUN },
});

/**
 * The webhook's body is read raw (its signature is over the exact bytes), so the declaration documents it and the
 * route checks it itself (temporal/ingestion/webhooks/routes.ts: the order of its checks is part of the contract).
 */
export const postWebhook = route({
  method: 'POST',
  path: '/ingest/webhooks/{provider}',
  tags,
  summary: 'A code host’s webhook delivery (push, pull/merge request)',
  description:
    'No bearer token: the delivery is authenticated by the host’s signature against the source’s ' +
    '`webhook_secret` (GitHub `X-Hub-Signature-256`, Gitea/Forgejo `X-Gitea-Signature`, GitLab ' +
    '`X-Gitlab-Token`). The source is found by the repository the payload names (owner/name, or a clone URL ' +
    'equal to the source’s url). A push on the tracked branch, or a pull/merge request opened, reopened or ' +
    'updated, queues a sync (202 at once; pushes that arrive while a sync runs coalesce into one sync of the ' +
    'newest commit); a closed/merged request cleans its syncs; other events 202 with the reason; a repeated ' +
    'delivery id 202 `duplicate`. Body: JSON only, at most 5 MB. See docs/webhooks.md.',
  params: { provider: path.string({ type: 'string', enum: PROVIDERS }) },
  security: [],
  success: {
    status: 202,
    description: 'Acknowledged: `results` says, per matching source, accepted / closed / ignored / duplicate.',
    schema: WebhookAck,
  },
  responses: {
    400: INVALID_FIELD,
    401: errorReply('UNAUTHORIZED: the signature header is missing or does not match.'),
    404: errorReply('NOT_FOUND: unknown provider, or no source with a webhook secret for the repository.'),
  },
});

export const INGEST_ROUTES = [teardownSource, getWorkflowState, getScheduleState, postWebhook] as const;
