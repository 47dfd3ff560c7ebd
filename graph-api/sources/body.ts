/**
 * Request bodies of POST and PATCH /api/sources as the queries take them. The bodies are validated by their route
 * schemas (lib/api/routes/sources.ts: unknown fields refused, text trimmed and checked, null only where the document
 * allows it); what only the deployment knows, the repository URL policy (lib/source-url.ts), is checked here.
 */
import type { z } from 'zod';
import type { SourceCreate, SourcePatch as SourcePatchBody } from '../../lib/api/routes/sources.ts';
import { InvalidArgumentError } from '../../lib/errors.ts';
import { sourceUrlProblem, type SourceUrlPolicy } from '../../lib/source-url.ts';
import type { SourcePatch, SourceUpsert } from './queries.ts';

type Create = z.output<typeof SourceCreate>;
type Patch = z.output<typeof SourcePatchBody>;

/** The editable fields that were sent, the URL checked against the deployment's policy. */
function editable(body: Patch, policy: SourceUrlPolicy): SourcePatch {
  const into: SourcePatch = {};
  if (body.url !== undefined) {
    const problem = sourceUrlProblem(body.url, policy);
    if (problem) throw new InvalidArgumentError('url', problem);
    into.url = body.url;
  }
  if (body.default_branch !== undefined) into.default_branch = body.default_branch;
  if (body.config !== undefined) into.config = body.config;
  if (body.enabled !== undefined) into.enabled = body.enabled;
  if (body.meta !== undefined) into.meta = body.meta;
  return into;
}

export interface ParsedCreate {
  source: SourceUpsert;
  accessToken: string | null | undefined;
  webhookSecret: string | null | undefined;
}

export function parseCreate(body: Create, policy: SourceUrlPolicy): ParsedCreate {
  const source: SourceUpsert = {
    source_type: body.source_type ?? 'github_repo',
    owner: body.owner,
    name: body.name,
    ...editable(body, policy),
  };
  return { source, accessToken: body.access_token, webhookSecret: body.webhook_secret };
}

export interface ParsedPatch {
  patch: SourcePatch;
  accessToken: string | null | undefined;
  webhookSecret: string | null | undefined;
}

export function parsePatch(body: Patch, policy: SourceUrlPolicy): ParsedPatch {
  return { patch: editable(body, policy), accessToken: body.access_token, webhookSecret: body.webhook_secret };
}
