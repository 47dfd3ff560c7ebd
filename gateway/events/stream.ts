/**
 * GET /api/events: one client's server-sent event stream.
 *
 * 1. The resume point is the `Last-Event-ID` header, else the `last_event_id` query parameter (a non-negative
 *    integer; anything else is 400 naming it). Without either the stream starts live, with no catch-up.
 * 2. Catch-up: when rows after the resume point were pruned (retention: the id is below the pruning watermark), an
 *    `event: events_missed` frame comes first (frames.ts), then the rows that are kept. Rows with id > resume are read from the table and sent in id order, page by page, honouring socket
 *    back-pressure, up to the hub's position (every row up to it was delivered or given up on), re-read after each
 *    page while the hub moves on. When the cursor reaches the hub's position the client goes live in the same tick,
 *    so no frame the hub delivers is missed and none is sent twice; in-order frames the hub offers meanwhile are
 *    ignored (the table has them). Nothing is buffered per client but late frames.
 * 3. When the token used to connect expires, an `event: error` frame with `{"code":"token_expired"}` is sent and
 *    the stream ends.
 * 4. A live client whose unsent output passes `bufferBytes` is caught up from the table once its socket drains;
 *    one that does not drain within `stallMs` is dropped (it resumes with Last-Event-ID). The hub never waits.
 */
import type Koa from 'koa';
import type pg from 'pg';
import { InvalidArgumentError, UpstreamError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import { counter, gauge } from '../../lib/metrics.ts';
import type { Claims } from '../auth/verify.ts';
import { errorFrame, eventFrame, eventsMissedFrame, RETRY_FRAME } from './frames.ts';
import { SseConnection } from './connection.ts';
import type { EventHub } from './hub.ts';
import { prunedThrough, rowsAfter, type EventRecord } from './store.ts';

const sseClients = gauge('ckg_sse_clients', 'Open event-stream clients');
const sseDisconnects = counter('ckg_sse_disconnects_total', 'Event-stream clients that left, by reason', ['reason']);

const CATCH_UP_PAGE = 2000;
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface EventsDeps {
  hub: EventHub;
  pool: pg.Pool;
  log: Logger;
  bufferBytes: number;
  /** How long a lagging client may take to drain its socket before it is dropped. */
  stallMs: number;
  now?: () => number;
}

/** Resolves true on 'drain', false when the response closes or `ms` pass first. */
function drained(res: SseConnection['res'], ms: number): Promise<boolean> {
  if (res.writableLength === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => finish(true);
    const onClose = () => finish(false);
    const timer = setTimeout(() => finish(false), ms);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

function parseResume(ctx: Koa.Context): number | undefined {
  const header = ctx.get('last-event-id').trim();
  const [field, raw] =
    header !== '' ? ['Last-Event-ID', header] : ['last_event_id', ctx.query.last_event_id as unknown];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string') throw new InvalidArgumentError(field, 'must be given once');
  if (!/^\d{1,15}$/.test(raw)) throw new InvalidArgumentError(field, 'must be a non-negative integer event id');
  return Number(raw);
}

/**
 * Sends rows after `after` until the cursor meets the hub's position, then switches the client to live. Used on
 * connect (`initial`) and when a live client lagged: then it first waits for the socket to drain.
 */
async function catchUp(deps: EventsDeps, conn: SseConnection, after: number, initial: boolean): Promise<void> {
  const { hub, pool, log } = deps;
  const t0 = performance.now();
  let cursor = after;
  let rows = 0;
  try {
    if (!initial && !(await drained(conn.res, deps.stallMs))) {
      conn.end(conn.ended ?? 'slow_client');
      return;
    }
    if (initial) {
      const pruned = await prunedThrough(pool);
      if (conn.ended) return;
      if (after < pruned) {
        conn.write(eventsMissedFrame(after, pruned), 0);
        log.info('sse_events_missed', { after, pruned_through: pruned });
      }
    }
    // The next page is read while the current one drains to the client.
    let next: { upTo: number; rows: Promise<EventRecord[]> } | undefined;
    for (;;) {
      const upTo = hub.lastId!;
      if (cursor >= upTo) {
        conn.goLive(cursor); // same tick as the check: the hub cannot deliver in between
        break;
      }
      const read = next ?? { upTo, rows: rowsAfter(pool, cursor, CATCH_UP_PAGE, upTo) };
      next = undefined;
      const page = await read.rows;
      if (conn.ended) return;
      if (page.length === 0) {
        cursor = read.upTo; // only holes the hub gave up on remain up to the position this read covered
        continue;
      }
      let chunk = '';
      for (const row of page) {
        chunk += eventFrame(row);
        if (hub.isWatched(row.id) || conn.holdsLate(row.id)) conn.lateSent.add(row.id);
      }
      cursor = page[page.length - 1]!.id;
      rows += page.length;
      const flowing = conn.write(chunk, page.length);
      if (page.length === CATCH_UP_PAGE) {
        next = { upTo, rows: rowsAfter(pool, cursor, CATCH_UP_PAGE, upTo) };
        next.rows.catch(() => undefined); // awaited (its error handled) on the next turn, unless the client left
      }
      if (!flowing && !(await drained(conn.res, deps.stallMs))) {
        conn.end(conn.ended ?? 'slow_client');
        return;
      }
    }
  } catch (err) {
    log.warning('sse_replay_failed', { after, error: err });
    conn.end('server_closing');
    return;
  }
  if (initial) log.info('sse_replay', { after, up_to: cursor, rows, ms: Math.round(performance.now() - t0) });
}

export type EventsHandler = (ctx: Koa.Context, claims: Claims) => Promise<void>;

export function createEventsHandler(deps: EventsDeps): EventsHandler & { closeAll(): void } {
  const { hub, log } = deps;
  const now = deps.now ?? Date.now;
  const open = new Set<SseConnection>();

  const handler = async (ctx: Koa.Context, claims: Claims) => {
    const resumeAfter = parseResume(ctx);
    const hubAt = hub.lastId;
    if (hubAt === undefined) throw new UpstreamError('UPSTREAM_UNAVAILABLE', 'the event stream is not ready');

    const res = ctx.res;
    ctx.respond = false;
    ctx.status = 200;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.socket?.setNoDelay(true);
    res.write(RETRY_FRAME);

    const started = now();
    const subject = typeof claims.sub === 'string' ? claims.sub : undefined;
    const remote = `${res.socket?.remoteAddress ?? ''}:${res.socket?.remotePort ?? ''}`;
    let expiry: NodeJS.Timeout | undefined;
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const conn = new SseConnection(res, resumeAfter, deps.bufferBytes, {
      onEnd: (reason) => ended(reason),
      onLag: () => {
        log.debug('sse_client_lagging', { subject, remote, last_id: conn.sentMax, hub_last_id: hub.lastId });
        void catchUp(deps, conn, conn.sentMax, false);
      },
    });
    const ended = (reason: string) => {
      hub.remove(conn);
      open.delete(conn);
      sseClients.dec();
      sseDisconnects.inc({ reason });
      if (expiry) clearTimeout(expiry);
      log.info('sse_client_disconnected', {
        subject,
        remote,
        reason,
        frames_sent: conn.sent,
        last_id: conn.sentMax,
        seconds: Math.round((now() - started) / 100) / 10,
      });
      resolveDone();
    };
    res.once('close', () => conn.end('client_closed'));
    open.add(conn);
    hub.add(conn);
    sseClients.inc();
    log.info('sse_client_connected', {
      subject,
      remote,
      resume_after: resumeAfter ?? null,
      hub_last_id: hubAt,
      clients: hub.clientCount,
    });

    const msLeft = claims.exp * 1000 - now();
    const arm = (ms: number) => {
      expiry = setTimeout(
        () => {
          if (claims.exp * 1000 - now() > 0) return arm(claims.exp * 1000 - now());
          conn.end('token_expired', errorFrame('token_expired'));
        },
        Math.max(0, Math.min(ms, MAX_TIMER_MS)),
      );
      expiry.unref();
    };
    arm(msLeft);

    if (resumeAfter === undefined) conn.goLive(hubAt);
    else await catchUp(deps, conn, resumeAfter, true);
    await done;
  };

  return Object.assign(handler, {
    closeAll() {
      for (const c of [...open]) c.end('server_closing');
    },
  });
}
