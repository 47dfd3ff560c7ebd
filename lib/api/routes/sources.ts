/**
 * The source routes of the graph component, declared once (lib/api/route.ts): list, one, upsert, patch, delete.
 * The repository URL is checked twice: as text here, against the deployment's policy (SOURCE_URL_SCHEMES/HOSTS,
 * lib/source-url.ts) by the handler, which alone knows the policy.
 */
import { z } from 'zod';
import { InvalidArgumentError } from '../../errors.ts';
import { checkRetentionConfig } from '../../retention.ts';
import { checkSyncConfig } from '../../sync-config.ts';
import { bool, gitRef, jsonObject, page, path, text } from '../fields.ts';
import { route } from '../route.ts';
import { errorReply, INVALID_PARAMETER, NOT_FOUND } from './errors.ts';
import { nullableTimestamp, object, pageOf, uuid as uuidOut } from '../schemas.ts';

const MAX_NAME = 200;
const MAX_URL = 2048;
const MAX_TOKEN = 4096;

export const Source = z
  .object({
    id: uuidOut(),
    source_type: z.string(),
    owner: z.string(),
    name: z.string(),
    url: z.string().nullable().describe('Without credentials (removed from URLs stored with them).'),
    default_branch: z.string(),
    config: object(),
    enabled: z.boolean(),
    last_sync_id: z.string().nullable().meta({ format: 'uuid' }),
    last_synced_at: nullableTimestamp(),
    meta: object(),
    has_access_token: z.boolean(),
    has_webhook_secret: z.boolean().describe('whether webhook deliveries can be verified (docs/webhooks.md)'),
    created_at: nullableTimestamp(),
    updated_at: nullableTimestamp(),
  })
  .meta({ id: 'Source' });
export type Source = z.infer<typeof Source>;

const ownerOrName = () =>
  text({ max: MAX_NAME, required: true, check: (v) => !/[\s/]/.test(v), hint: 'must not contain spaces or slashes' });

/** The fields both an upsert and a patch may set, in the order they are checked. */
const editable = {
  url: text({
    max: MAX_URL,
    description:
      'Repository URL: https:// or ssh (ssh://, user@host:path); http:// and file:// or an absolute path only ' +
      'where SOURCE_URL_SCHEMES lists them; limited to SOURCE_URL_HOSTS when set. No credentials in the URL ' +
      '(400: use access_token); ext:: and other transports are refused. null is refused; leave the field ' +
      'out to keep the stored URL.',
  }),
  default_branch: gitRef("A git branch or ref name (git check-ref-format rules; never starting with '-'), else 400."),
  config: jsonObject({
    field: 'config',
    check: (v) => {
      checkSyncConfig(v, 'config');
      checkRetentionConfig(v, 'config');
    },
    description:
      'Ingestion options (other keys are kept as given). incremental=false forces full syncs: by default a ' +
      'sync reuses the parse results, chunks, vectors and cached summaries of files whose path and content ' +
      'equal those of the source’s previous completed sync (see stats.incremental of a sync). ' +
      'symbol_graph=false leaves out the symbol graph (no symbol facts, no calls/inherits/implements/' +
      'overrides/references edges; symbols keep their keys; symbol reads say lower_bound, no_symbol_graph). ' +
      '`retention`: { keep_completed, keep_failed } (docs/operators.md).',
  })
    .meta({
      properties: {
        include_paths: { type: 'array', items: { type: 'string', minLength: 1 } },
        embeddings: { type: 'boolean', default: true },
        incremental: { type: 'boolean', default: true },
        symbol_graph: { type: 'boolean', default: true },
        retention: {
          type: 'object',
          properties: { keep_completed: { type: 'integer' }, keep_failed: { type: 'integer' } },
        },
      },
    })
    .optional(),
  enabled: bool(),
  meta: jsonObject({ field: 'meta' }).optional(),
  access_token: text({ max: MAX_TOKEN, nullable: true }).meta({ writeOnly: true }),
  webhook_secret: text({
    max: MAX_TOKEN,
    nullable: true,
    check: (v) => v.length >= 16,
    hint: 'must be at least 16 characters long',
    description:
      'The secret the code host signs webhook deliveries with (POST /ingest/webhooks/{provider}); stored ' +
      'apart, never returned; null removes it.',
  }).meta({ writeOnly: true, minLength: 16 }),
};

export const SourceCreate = z
  .strictObject({
    source_type: text({ max: MAX_NAME }).meta({ default: 'github_repo' }),
    owner: ownerOrName(),
    name: ownerOrName(),
    ...editable,
  })
  .meta({ id: 'SourceCreate' });
export type SourceCreate = z.input<typeof SourceCreate>;

export const SourcePatch = z.strictObject(editable).meta({ id: 'SourcePatch', minProperties: 1 });
export type SourcePatch = z.input<typeof SourcePatch>;

const sourceParams = { source_id: path.uuid() };

export const listSources = route({
  method: 'GET',
  path: '/api/sources',
  summary: 'List sources',
  query: page('uuid'),
  success: { status: 200, description: 'A page of sources', schema: pageOf(Source) },
  responses: { 400: INVALID_PARAMETER },
});

export const getSource = route({
  method: 'GET',
  path: '/api/sources/{source_id}',
  summary: 'One source',
  params: sourceParams,
  success: { status: 200, description: 'The source', schema: Source },
  responses: { 400: INVALID_PARAMETER, 404: NOT_FOUND },
});

export const upsertSource = route({
  method: 'POST',
  path: '/api/sources',
  summary: 'Create or update a source (upsert by source_type, owner, name)',
  description:
    'Fields not sent keep their stored value on update. A new github_repo without url gets ' +
    '`https://github.com/<owner>/<name>.git`. `access_token` is stored apart and never returned. Unknown ' +
    'fields are refused. Emits `source_changed` (created|updated).',
  body: { schema: SourceCreate, required: true },
  success: { status: 201, description: 'Created', schema: Source },
  responses: { 200: { description: 'Updated', schema: Source }, 400: INVALID_PARAMETER },
});

export const patchSource = route({
  method: 'PATCH',
  path: '/api/sources/{source_id}',
  summary: 'Change config, enabled, url, default_branch, meta or the access token (null removes it)',
  params: sourceParams,
  body: {
    schema: SourcePatch,
    required: true,
    before: (raw) => {
      for (const key of ['source_type', 'owner', 'name']) {
        if (key in raw) {
          throw new InvalidArgumentError(key, 'cannot be changed (it identifies the source; create another one)');
        }
      }
      if (Object.keys(raw).length === 0) {
        throw new InvalidArgumentError('body', `must contain at least one of ${Object.keys(editable).join(', ')}`);
      }
    },
  },
  success: { status: 200, description: 'The updated source', schema: Source },
  responses: { 400: INVALID_PARAMETER, 404: NOT_FOUND },
});

export const deleteSource = route({
  method: 'DELETE',
  path: '/api/sources/{source_id}',
  summary: 'Delete the source and everything of it',
  description:
    'First `DELETE {INGESTION_SERVICE_URL}/ingest/sources/{id}` (cancels the active workflow, deletes the ' +
    'Temporal schedules); then the row, cascading to runs, issues, schedules, files, chunks, the secret and ' +
    'the graph rows. If the ingestion component cannot do its part nothing is deleted. Emits `source_changed` ' +
    '(deleted).',
  params: sourceParams,
  success: { status: 204, description: 'Deleted' },
  responses: {
    400: INVALID_PARAMETER,
    404: NOT_FOUND,
    502: errorReply('UPSTREAM_DISCONNECTED: the ingestion component refused the teardown'),
    503: errorReply('UPSTREAM_UNAVAILABLE: the ingestion component is unreachable'),
    504: errorReply('UPSTREAM_TIMEOUT'),
  },
});

/** The source routes the graph component serves. */
export const SOURCE_ROUTES = [listSources, getSource, upsertSource, patchSource, deleteSource] as const;
