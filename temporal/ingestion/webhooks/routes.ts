/**
 * POST /ingest/webhooks/{github|gitlab|gitea}: deliveries from the code hosts (docs/webhooks.md). The gateway passes
 * this route without a bearer token: the host's signature is its authentication. Mounted before the body parser,
 * because the signature is over the exact bytes.
 *
 * Order of checks (each refusal in the one error shape, nothing written before the signature holds):
 * 404 unknown provider → 400 wrong content type / body too large / not JSON → 401 no signature header →
 * 404 no source with a webhook secret for the repository → 401 signature wrong for every such source →
 * 400 the delivery lacks its event, id or repository parts → 202 duplicate / ignored (with the reason) / accepted.
 * An accepted delivery only records a follow-up (webhooks/followups.ts): the answer never waits on Temporal.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { koaPath } from '../../../lib/api/route.ts';
import { postWebhook, type WebhookAck } from '../../../lib/api/routes/ingest.ts';
import { withTransaction } from '../../../lib/db.ts';
import { InvalidArgumentError, NotFoundError, UnauthorizedError } from '../../../lib/errors.ts';
import type { IngestionDeps } from '../deps.ts';
import { closePullRequest, requestFollowup, type Sweeper } from './followups.ts';
import {
  hasSignature,
  MalformedDelivery,
  PROVIDERS,
  readDelivery,
  repoIdentity,
  urlKey,
  verifySignature,
  type Delivery,
  type Provider,
} from './providers.ts';

/** GitHub caps payloads at 25 MB; a push of many commits is well under this. */
export const WEBHOOK_MAX_BODY_BYTES = 5 * 1024 * 1024;

interface Candidate {
  id: string;
  default_branch: string;
  enabled: boolean;
  secret: string;
}

/** A body this much over the limit is not read to its end: the connection is closed under it instead. */
const DRAIN_FACTOR = 4;

/**
 * The raw body, at most `limit` bytes. A larger one is read to its end and dropped (up to DRAIN_FACTOR × limit), so
 * the sender gets its 400 instead of a connection reset in the middle of its upload.
 */
async function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || NaN);
  const tooLarge = () => new InvalidArgumentError('body', `is larger than ${limit} bytes`);
  if (declared > DRAIN_FACTOR * limit) {
    ctx.set('connection', 'close');
    throw tooLarge();
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > DRAIN_FACTOR * limit) {
      ctx.set('connection', 'close');
      throw tooLarge();
    }
    if (size <= limit) parts.push(chunk);
  }
  if (size > limit) throw tooLarge();
  return Buffer.concat(parts);
}

/**
 * Sources with a webhook secret that the delivery's repository names: by owner/name (case-insensitive), or by a clone
 * URL equal to the source's up to scheme, case and `.git` (urlKey).
 */
async function candidates(deps: IngestionDeps, fullName: string, urls: string[]): Promise<Candidate[]> {
  const keys = new Set(urls.flatMap((u) => urlKey(u) ?? []));
  const r = await deps.pool.query<Candidate & { url: string | null; by_name: boolean }>(
    `SELECT s.id, s.default_branch, s.enabled, w.secret, s.url, lower(s.owner || '/' || s.name) = lower($1) AS by_name
       FROM sources s JOIN source_webhook_secrets w ON w.source_id = s.id
      WHERE lower(s.owner || '/' || s.name) = lower($1) OR ($2 AND s.url IS NOT NULL)
      ORDER BY s.created_at, s.id`,
    [fullName, keys.size > 0],
  );
  return r.rows
    .filter((c) => c.by_name || (c.url !== null && keys.has(urlKey(c.url) ?? '')))
    .map(({ id, default_branch, enabled, secret }) => ({ id, default_branch, enabled, secret }));
}

type Outcome =
  | { status: 'accepted'; ref: string; commit: string | null; pr_number?: number }
  | { status: 'closed'; pr_number: number; syncs: number }
  | { status: 'ignored'; reason: string }
  | { status: 'duplicate' };

async function act(deps: IngestionDeps, provider: Provider, source: Candidate, d: Delivery): Promise<Outcome> {
  return withTransaction(deps.pool, async (tx) => {
    const a = d.action;
    const outcomeOf = (): Outcome => {
      if (!source.enabled) return { status: 'ignored', reason: 'the source is disabled' };
      if (a.kind === 'ignored') return { status: 'ignored', reason: a.reason };
      if (a.kind === 'push' && a.branch !== source.default_branch) {
        return { status: 'ignored', reason: `branch ${a.branch} is not the tracked branch ${source.default_branch}` };
      }
      if (a.kind === 'push') return { status: 'accepted', ref: a.branch, commit: a.commit };
      if (a.kind === 'pr_sync') return { status: 'accepted', ref: a.ref, commit: a.headCommit, pr_number: a.number };
      return { status: 'closed', pr_number: a.number, syncs: 0 };
    };
    let outcome = outcomeOf();
    const seen = await tx.query(
      `INSERT INTO webhook_deliveries (provider, delivery_id, source_id, event, outcome)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (provider, delivery_id) DO NOTHING`,
      [provider, d.deliveryId, source.id, d.event.slice(0, 100), outcome.status],
    );
    if (seen.rowCount === 0) return { status: 'duplicate' };
    if (outcome.status === 'accepted') {
      await requestFollowup(tx, {
        sourceId: source.id,
        ref: outcome.ref,
        commit: outcome.commit,
        provider,
        trigger: `webhook:${provider}`,
        ...(a.kind === 'pr_sync' ? { pr: { number: a.number, baseRef: a.baseRef } } : {}),
      });
    } else if (outcome.status === 'closed') {
      outcome = { ...outcome, syncs: await closePullRequest(tx, source.id, outcome.pr_number) };
    }
    return outcome;
  });
}

function malformedAs400<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof MalformedDelivery) throw new InvalidArgumentError(err.field, err.message);
    throw err;
  }
}

export function webhookRoutes(router: Router, deps: IngestionDeps, sweeper: Sweeper): void {
  // Not mount(): the body is read raw here (see postWebhook); the declaration gives the path and the document.
  router.post(koaPath(postWebhook.path), async (ctx) => {
    const provider = ctx.params.provider as Provider;
    if (!PROVIDERS.includes(provider)) throw new NotFoundError('webhook provider', ctx.params.provider);
    if (!ctx.is('application/json')) {
      throw new InvalidArgumentError('content-type', 'must be application/json (set the webhook to send JSON)');
    }
    const body = await readRaw(ctx, WEBHOOK_MAX_BODY_BYTES);
    if (!hasSignature(provider, ctx.headers))
      throw new UnauthorizedError(`the ${provider} signature header is missing`);
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw new InvalidArgumentError('body', 'is not valid JSON', { cause: err });
    }
    // Only the repository's name is read before the signature is checked: it says whose secret to check with.
    const repo = malformedAs400(() => repoIdentity(provider, payload));
    const found = await candidates(deps, repo.fullName, repo.urls);
    if (found.length === 0) throw new NotFoundError('source with a webhook secret for repository', repo.fullName);
    const verified = found.filter((c) => verifySignature(provider, ctx.headers, body, c.secret));
    if (verified.length === 0) throw new UnauthorizedError(`the ${provider} signature does not match`);
    const delivery = malformedAs400(() => readDelivery(provider, ctx.headers, body, payload));
    const results = [];
    for (const source of verified)
      results.push({ source_id: source.id, ...(await act(deps, provider, source, delivery)) });
    if (results.some((r) => r.status === 'accepted' || r.status === 'closed')) sweeper.kick();
    const ack: WebhookAck = { delivery_id: delivery.deliveryId, event: delivery.event, results };
    ctx.status = postWebhook.success.status;
    ctx.body = ack;
  });
}
