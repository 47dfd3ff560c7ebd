/**
 * Request bodies of POST and PATCH /api/sources, read with the one validator (lib/validate.ts): unknown fields are
 * refused, text is trimmed and checked (no NUL, valid UTF-8), null only where the OpenAPI document allows it
 * (access_token: null removes the token; `url: null` is 400: url is a string, and leaving it out keeps the stored one).
 */
import { InvalidArgumentError } from '../../lib/errors.ts';
import { sourceUrlProblem, type SourceUrlPolicy } from '../../lib/source-url.ts';
import { checkRetentionConfig } from '../../lib/retention.ts';
import { checkSyncConfig } from '../../lib/sync-config.ts';
import { bodyBool, bodyGitRef, bodyObject, bodyString, refuseUnknown, type Body } from '../../lib/validate.ts';
import type { SourcePatch, SourceUpsert } from './queries.ts';

const MAX_NAME = 200;
const MAX_URL = 2048;
const MAX_TOKEN = 4096;

function ownerOrName(body: Body, field: string): string {
  return bodyString(body, field, {
    maxLength: MAX_NAME,
    required: true,
    check: (v) => !/[\s/]/.test(v),
    checkHint: 'must not contain spaces or slashes',
  });
}

/** A repository URL the deployment's policy allows (lib/source-url.ts): transport, host, no credentials. */
function url(body: Body, policy: SourceUrlPolicy): string | undefined {
  const v = bodyString(body, 'url', { maxLength: MAX_URL });
  if (v === undefined) return undefined;
  const problem = sourceUrlProblem(v, policy);
  if (problem) throw new InvalidArgumentError('url', problem);
  return v;
}

function config(body: Body): Record<string, unknown> | undefined {
  const c = bodyObject(body, 'config');
  checkSyncConfig(c, 'config');
  checkRetentionConfig(c, 'config');
  return c;
}

/** `access_token`: a string sets it, null removes it, absent leaves it. Never echoed in messages. */
function accessToken(body: Body): string | null | undefined {
  return bodyString(body, 'access_token', { maxLength: MAX_TOKEN, nullable: true });
}

/** `webhook_secret`: like access_token (write-only; null removes it). At least 16 characters: it signs deliveries. */
function webhookSecret(body: Body): string | null | undefined {
  return bodyString(body, 'webhook_secret', {
    maxLength: MAX_TOKEN,
    nullable: true,
    check: (v) => v.length >= 16,
    checkHint: 'must be at least 16 characters long',
  });
}

const EDITABLE = ['url', 'default_branch', 'config', 'enabled', 'meta', 'access_token', 'webhook_secret'] as const;

function editable(body: Body, into: SourcePatch, policy: SourceUrlPolicy): void {
  const u = url(body, policy);
  if (u !== undefined) into.url = u;
  const branch = bodyGitRef(body, 'default_branch');
  if (branch !== undefined) into.default_branch = branch;
  const c = config(body);
  if (c !== undefined) into.config = c;
  const e = bodyBool(body, 'enabled');
  if (e !== undefined) into.enabled = e;
  const m = bodyObject(body, 'meta');
  if (m !== undefined) into.meta = m;
}

export interface ParsedCreate {
  source: SourceUpsert;
  accessToken: string | null | undefined;
  webhookSecret: string | null | undefined;
}

export function parseCreate(body: Body, policy: SourceUrlPolicy): ParsedCreate {
  refuseUnknown(body, ['source_type', 'owner', 'name', ...EDITABLE]);
  const source: SourceUpsert = {
    source_type: bodyString(body, 'source_type', { maxLength: MAX_NAME }) ?? 'github_repo',
    owner: ownerOrName(body, 'owner'),
    name: ownerOrName(body, 'name'),
  };
  editable(body, source, policy);
  return { source, accessToken: accessToken(body), webhookSecret: webhookSecret(body) };
}

export interface ParsedPatch {
  patch: SourcePatch;
  accessToken: string | null | undefined;
  webhookSecret: string | null | undefined;
}

export function parsePatch(body: Body, policy: SourceUrlPolicy): ParsedPatch {
  for (const key of ['source_type', 'owner', 'name']) {
    if (key in body)
      throw new InvalidArgumentError(key, 'cannot be changed (it identifies the source; create another one)');
  }
  refuseUnknown(body, EDITABLE);
  if (Object.keys(body).length === 0) {
    throw new InvalidArgumentError('body', `must contain at least one of ${EDITABLE.join(', ')}`);
  }
  const patch: SourcePatch = {};
  editable(body, patch, policy);
  return { patch, accessToken: accessToken(body), webhookSecret: webhookSecret(body) };
}
