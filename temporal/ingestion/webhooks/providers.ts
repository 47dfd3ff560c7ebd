/**
 * The three code hosts' webhook dialects, read the same way: which repository a delivery is about (to find the
 * source and its secret), whether its signature holds, and what it asks for (a push on a branch, a pull/merge request
 * opened, updated or closed). Pure: no database, no I/O.
 *
 * Authentication, per host (docs/webhooks.md):
 * - GitHub:  `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>`, event `X-GitHub-Event`, id `X-GitHub-Delivery`.
 * - Gitea/Forgejo: `X-Gitea-Signature` (or `X-Forgejo-Signature`): `<hex HMAC-SHA256(secret, body)>`, event
 *   `X-Gitea-Event` / `X-Forgejo-Event`, id `X-Gitea-Delivery` / `X-Forgejo-Delivery`.
 * - GitLab:  `X-Gitlab-Token: <secret>` (the secret itself), event `X-Gitlab-Event`, id `X-Gitlab-Event-UUID`
 *   (or `Idempotency-Key`, or `X-Gitlab-Webhook-UUID` + a hash of the body when neither is sent).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

import type { Provider } from '../../../lib/api/routes/ingest.ts';

export { PROVIDERS, type Provider } from '../../../lib/api/routes/ingest.ts';

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** The repository a delivery names, in the forms sources are matched on. */
export interface RepoIdentity {
  /** `owner/name` (GitLab: the project's full path, groups included). */
  fullName: string;
  /** Clone URLs the payload gives (https, ssh), for sources whose owner/name differ from the host's. */
  urls: string[];
}

export type WebhookAction =
  | { kind: 'push'; branch: string; commit: string | null }
  | { kind: 'pr_sync'; number: number; ref: string; baseRef: string; headCommit: string | null }
  | { kind: 'pr_closed'; number: number; merged: boolean }
  | { kind: 'ignored'; reason: string };

export interface Delivery {
  event: string;
  deliveryId: string;
  repo: RepoIdentity;
  action: WebhookAction;
}

/** A delivery that cannot be read: the reason goes back in a 400. */
export class MalformedDelivery extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'MalformedDelivery';
  }
}

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function eventHeader(provider: Provider, headers: Headers): string | undefined {
  if (provider === 'github') return header(headers, 'x-github-event');
  if (provider === 'gitlab') return header(headers, 'x-gitlab-event');
  return header(headers, 'x-gitea-event') ?? header(headers, 'x-forgejo-event');
}

function deliveryHeader(provider: Provider, headers: Headers, body: Buffer): string | undefined {
  if (provider === 'github') return header(headers, 'x-github-delivery');
  if (provider === 'gitea') return header(headers, 'x-gitea-delivery') ?? header(headers, 'x-forgejo-delivery');
  const id = header(headers, 'x-gitlab-event-uuid') ?? header(headers, 'idempotency-key');
  if (id) return id;
  // Older GitLab sends neither: the webhook's own id plus the body's hash stands for the delivery.
  const hook = header(headers, 'x-gitlab-webhook-uuid');
  return hook ? `${hook}:${createHash('sha256').update(body).digest('hex')}` : undefined;
}

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/** Whether the delivery's signature (or token) holds for `secret`. Constant-time in the compared values. */
export function verifySignature(provider: Provider, headers: Headers, body: Buffer, secret: string): boolean {
  if (provider === 'gitlab') {
    const token = header(headers, 'x-gitlab-token');
    if (token === undefined) return false;
    // Hash both sides so the comparison takes the same time whatever the lengths.
    const h = (s: string) => createHash('sha256').update(s, 'utf8').digest();
    return sameBytes(h(token), h(secret));
  }
  let given =
    provider === 'github'
      ? header(headers, 'x-hub-signature-256')
      : (header(headers, 'x-gitea-signature') ?? header(headers, 'x-forgejo-signature'));
  if (!given) return false;
  if (provider === 'github') {
    if (!given.startsWith('sha256=')) return false;
    given = given.slice('sha256='.length);
  }
  if (!/^[0-9a-f]{64}$/i.test(given)) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return sameBytes(Buffer.from(given.toLowerCase(), 'hex'), expected);
}

/** Whether the request carries any signature at all for its provider (none: 401 without looking further). */
export function hasSignature(provider: Provider, headers: Headers): boolean {
  if (provider === 'github') return header(headers, 'x-hub-signature-256') !== undefined;
  if (provider === 'gitlab') return header(headers, 'x-gitlab-token') !== undefined;
  return header(headers, 'x-gitea-signature') !== undefined || header(headers, 'x-forgejo-signature') !== undefined;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const int = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined;

function need<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new MalformedDelivery(field, `${field} is missing or has the wrong type`);
  return value;
}

/** A 40- or 64-hex commit id, or null (a deleted branch's `after` is all zeros). */
function commitOf(v: unknown): string | null {
  const s = str(v);
  if (!s || !/^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(s) || /^0+$/.test(s)) return null;
  return s.toLowerCase();
}

/** The repository a payload names: all that is read of a delivery before its signature is checked. */
export function repoIdentity(provider: Provider, payload: unknown): RepoIdentity {
  const json = obj(payload);
  if (!json) throw new MalformedDelivery('body', 'is not a JSON object');
  return repoOf(provider, json);
}

function repoOf(provider: Provider, payload: Json): RepoIdentity {
  if (provider === 'gitlab') {
    const project = need(obj(payload.project), 'project');
    const fullName = need(str(project.path_with_namespace), 'project.path_with_namespace');
    return {
      fullName,
      urls: [project.git_http_url, project.git_ssh_url, project.web_url].flatMap((u) => str(u) ?? []),
    };
  }
  const repo = need(obj(payload.repository), 'repository');
  const fullName = need(str(repo.full_name), 'repository.full_name');
  return { fullName, urls: [repo.clone_url, repo.ssh_url, repo.html_url].flatMap((u) => str(u) ?? []) };
}

const BRANCH_PREFIX = 'refs/heads/';

function pushAction(payload: Json): WebhookAction {
  const ref = need(str(payload.ref), 'ref');
  if (!ref.startsWith(BRANCH_PREFIX)) return { kind: 'ignored', reason: `push to ${ref} is not a branch` };
  if (payload.deleted === true) return { kind: 'ignored', reason: 'the branch was deleted' };
  const commit = commitOf(payload.after ?? payload.checkout_sha);
  if (commit === null) return { kind: 'ignored', reason: 'the push carries no new commit (branch deleted)' };
  return { kind: 'push', branch: ref.slice(BRANCH_PREFIX.length), commit };
}

/** GitHub's and Gitea's pull_request payloads (the same shape, Gitea says `synchronized`). */
function pullRequestAction(provider: Provider, payload: Json): WebhookAction {
  const action = need(str(payload.action), 'action');
  const pr = need(obj(payload.pull_request), 'pull_request');
  const number = need(int(payload.number ?? pr.number), 'number');
  if (action === 'closed') return { kind: 'pr_closed', number, merged: pr.merged === true };
  if (!['opened', 'reopened', 'synchronize', 'synchronized'].includes(action)) {
    return { kind: 'ignored', reason: `pull request action ${action} changes no code` };
  }
  const base = need(obj(pr.base), 'pull_request.base');
  const head = obj(pr.head);
  return {
    kind: 'pr_sync',
    number,
    ref: `refs/pull/${number}/head`,
    baseRef: need(str(base.ref), 'pull_request.base.ref'),
    headCommit: commitOf(head?.sha),
  };
}

function mergeRequestAction(payload: Json): WebhookAction {
  const attrs = need(obj(payload.object_attributes), 'object_attributes');
  const number = need(int(attrs.iid), 'object_attributes.iid');
  const action = str(attrs.action) ?? '';
  if (action === 'close' || action === 'merge') return { kind: 'pr_closed', number, merged: action === 'merge' };
  // `update` without `oldrev` changed the description or labels, not the code.
  const codeChanged = action === 'open' || action === 'reopen' || (action === 'update' && attrs.oldrev !== undefined);
  if (!codeChanged) return { kind: 'ignored', reason: `merge request action ${action || '(none)'} changes no code` };
  const last = obj(attrs.last_commit);
  return {
    kind: 'pr_sync',
    number,
    ref: `refs/merge-requests/${number}/head`,
    baseRef: need(str(attrs.target_branch), 'object_attributes.target_branch'),
    headCommit: commitOf(last?.id),
  };
}

/**
 * Reads a delivery's headers and JSON body. Throws MalformedDelivery when an identifying part is missing; events
 * this service does not act on come back as `ignored` with the reason.
 */
export function readDelivery(provider: Provider, headers: Headers, body: Buffer, payload: unknown): Delivery {
  const event = eventHeader(provider, headers);
  if (!event) throw new MalformedDelivery('event', `the ${provider} event header is missing`);
  const deliveryId = deliveryHeader(provider, headers, body);
  if (!deliveryId || deliveryId.length > 200) {
    throw new MalformedDelivery('delivery', `the ${provider} delivery id header is missing or too long`);
  }
  const json = obj(payload);
  if (!json) throw new MalformedDelivery('body', 'is not a JSON object');
  const repo = repoOf(provider, json);
  let action: WebhookAction;
  if (provider === 'gitlab') {
    const kind = str(json.object_kind);
    if (kind === 'push') action = pushAction(json);
    else if (kind === 'merge_request') action = mergeRequestAction(json);
    else action = { kind: 'ignored', reason: `event ${event} is not handled` };
  } else if (event === 'push') action = pushAction(json);
  else if (event === 'pull_request') action = pullRequestAction(provider, json);
  else action = { kind: 'ignored', reason: `event ${event} is not handled` };
  return { event, deliveryId, repo, action };
}

/** The repository part of a clone URL, lower-cased without `.git` (`host/owner/name`), for matching sources. */
export function urlKey(url: string): string | undefined {
  const scp = /^[\w.-]+@([\w.-]+):(.+)$/.exec(url);
  let host: string;
  let path: string;
  if (scp) {
    host = scp[1]!;
    path = scp[2]!;
  } else {
    try {
      const u = new URL(url);
      host = u.hostname;
      path = u.pathname;
    } catch {
      return undefined;
    }
  }
  const clean = path.replace(/^\/+|\/+$/g, '').replace(/\.git$/i, '');
  return clean ? `${host}/${clean}`.toLowerCase() : undefined;
}
