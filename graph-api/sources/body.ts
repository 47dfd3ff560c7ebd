/**
 * Request bodies of POST and PATCH /api/sources. Unknown fields are refused (400 naming the field) so a misspelt
 * key never silently does nothing; every message names the offending field.
 */
import { InvalidArgumentError } from '../../lib/errors.ts';
import { checkSyncConfig } from '../../lib/sync-config.ts';
import type { SourcePatch, SourceUpsert } from './queries.ts';

const MAX_NAME = 200;
const MAX_URL = 2048;
const MAX_TOKEN = 4096;

type Body = Record<string, unknown>;

function refuseUnknown(body: Body, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key))
      throw new InvalidArgumentError(key, `is not a field of this request (allowed: ${allowed.join(', ')})`);
  }
}

function text(body: Body, field: string, max: number, required: boolean): string | undefined {
  const v = body[field];
  if (v === undefined) {
    if (required) throw new InvalidArgumentError(field, 'is required');
    return undefined;
  }
  if (typeof v !== 'string') throw new InvalidArgumentError(field, 'must be a string');
  const t = v.trim();
  if (t === '') throw new InvalidArgumentError(field, 'must not be empty');
  if (t.length > max) throw new InvalidArgumentError(field, `must be at most ${max} characters`);
  return t;
}

function ownerOrName(body: Body, field: string, required: boolean): string | undefined {
  const v = text(body, field, MAX_NAME, required);
  if (v !== undefined && /[\s/]/.test(v)) throw new InvalidArgumentError(field, 'must not contain spaces or slashes');
  return v;
}

function url(body: Body): string | null | undefined {
  if (body.url === null) return null;
  const v = text(body, 'url', MAX_URL, false);
  if (v === undefined) return undefined;
  // Clone URLs: http(s)/ssh/git/file URLs, scp-like git@host:path, or an absolute local path.
  const scpLike = /^[\w.-]+@[\w.-]+:\S+$/.test(v);
  const localPath = v.startsWith('/');
  if (!scpLike && !localPath) {
    let protocol: string;
    try {
      protocol = new URL(v).protocol;
    } catch {
      throw new InvalidArgumentError(
        'url',
        'must be a clone URL (https, ssh, git, file), user@host:path or an absolute path',
      );
    }
    if (!['http:', 'https:', 'ssh:', 'git:', 'file:'].includes(protocol)) {
      throw new InvalidArgumentError('url', `protocol ${protocol} is not supported (https, http, ssh, git, file)`);
    }
  }
  return v;
}

function object(body: Body, field: string): Record<string, unknown> | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new InvalidArgumentError(field, 'must be a JSON object');
  return v as Record<string, unknown>;
}

function config(body: Body): Record<string, unknown> | undefined {
  const c = object(body, 'config');
  checkSyncConfig(c, 'config');
  return c;
}

function bool(body: Body, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw new InvalidArgumentError(field, 'must be true or false');
  return v;
}

/** `access_token`: a string sets it, null removes it, absent leaves it. Never echoed in messages. */
function accessToken(body: Body): string | null | undefined {
  const v = body.access_token;
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string' || v.trim() === '')
    throw new InvalidArgumentError('access_token', 'must be a non-empty string or null');
  if (v.length > MAX_TOKEN) throw new InvalidArgumentError('access_token', `must be at most ${MAX_TOKEN} characters`);
  return v.trim();
}

const EDITABLE = ['url', 'default_branch', 'config', 'enabled', 'meta', 'access_token'] as const;

export interface ParsedCreate {
  source: SourceUpsert;
  accessToken: string | null | undefined;
}

export function parseCreate(body: Body): ParsedCreate {
  refuseUnknown(body, ['source_type', 'owner', 'name', ...EDITABLE]);
  const source: SourceUpsert = {
    source_type: text(body, 'source_type', MAX_NAME, false) ?? 'github_repo',
    owner: ownerOrName(body, 'owner', true)!,
    name: ownerOrName(body, 'name', true)!,
  };
  const u = url(body);
  if (u !== undefined) source.url = u;
  const branch = text(body, 'default_branch', MAX_NAME, false);
  if (branch !== undefined) source.default_branch = branch;
  const c = config(body);
  if (c !== undefined) source.config = c;
  const e = bool(body, 'enabled');
  if (e !== undefined) source.enabled = e;
  const m = object(body, 'meta');
  if (m !== undefined) source.meta = m;
  return { source, accessToken: accessToken(body) };
}

export interface ParsedPatch {
  patch: SourcePatch;
  accessToken: string | null | undefined;
}

export function parsePatch(body: Body): ParsedPatch {
  for (const key of ['source_type', 'owner', 'name']) {
    if (key in body)
      throw new InvalidArgumentError(key, 'cannot be changed (it identifies the source; create another one)');
  }
  refuseUnknown(body, EDITABLE);
  if (Object.keys(body).length === 0) {
    throw new InvalidArgumentError('body', `must contain at least one of ${EDITABLE.join(', ')}`);
  }
  const patch: SourcePatch = {};
  const u = url(body);
  if (u !== undefined) patch.url = u;
  const branch = text(body, 'default_branch', MAX_NAME, false);
  if (branch !== undefined) patch.default_branch = branch;
  const c = config(body);
  if (c !== undefined) patch.config = c;
  const e = bool(body, 'enabled');
  if (e !== undefined) patch.enabled = e;
  const m = object(body, 'meta');
  if (m !== undefined) patch.meta = m;
  return { patch, accessToken: accessToken(body) };
}
