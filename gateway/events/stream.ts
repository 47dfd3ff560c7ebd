/**
 * GET /api/events: one client's server-sent event stream.
 *
 * 1. The resume point is the `Last-Event-ID` header, else the `last_event_id` query parameter (a non-negative
 *    integer; anything else is 400 naming it). Without either the stream starts live, with no catch-up.
 * 2. The client registers with the hub first (its live frames are buffered), then every row with
 *    resume < id <= (the hub's position at registration) is read and sent in id order, page by page, honouring
 *    socket back-pressure; then the buffered live frames follow. Nothing is lost between catch-up and live, and
 *    nothing is sent twice.
 * 3. When the token used to connect expires, an `event: error` frame with `{"code":"token_expired"}` is sent and
 *    the stream ends.
 * 4. A client whose unsent output exceeds `bufferBytes` is dropped; it resumes with Last-Event-ID.
 */
import type Koa from 'koa';
import type pg from 'pg';
import { InvalidArgumentError, UpstreamError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import type { Claims } from '../auth/verify.ts';
import { errorFrame, eventFrame, RETRY_FRAME } from './frames.ts';
import type { EventHub, HubClient } from './hub.ts';
import { rowsAfter, type EventRecord } from './store.ts';

const CATCH_UP_PAGE = 2000;
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface EventsDeps {
  hub: EventHub;
  pool: pg.Pool;
  log: Logger;
  bufferBytes: number;
  now?: () => number;
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

type EndReason = 'client_closed' | 'token_expired' | 'slow_client' | 'server_closing';

class SseConnection implements HubClient {
  live = false;
  sent = 0;
  sentMax: number;
  readonly lateSent = new Set<number>();
  readonly #pending: { id: number; frame: string; late: boolean }[] = [];
  readonly #pendingLate = new Set<number>();
  #pendingBytes = 0;
  #ended: EndReason | undefined;
  readonly #onEnd: (reason: EndReason) => void;

  constructor(
    readonly res: Koa.Context['res'],
    readonly resumeAfter: number | undefined,
    registeredAt: number,
    readonly bufferBytes: number,
    onEnd: (reason: EndReason) => void,
  ) {
    this.sentMax = Math.max(resumeAfter ?? 0, registeredAt);
    this.#onEnd = onEnd;
  }

  get ended(): EndReason | undefined {
    return this.#ended;
  }

  deliver(record: EventRecord, frame: string): void {
    if (!this.live) return this.#hold(record.id, frame, false);
    if (record.id <= this.sentMax) return;
    this.sentMax = record.id;
    this.write(frame);
  }

  /**
   * A late row appears once, when its transaction commits; no connection open at that moment can have seen it
   * except through its own catch-up (tracked in lateSent), so it is sent whatever the resume point was.
   */
  deliverLate(record: EventRecord, frame: string): void {
    if (this.lateSent.has(record.id)) return;
    if (!this.live) return this.#hold(record.id, frame, true);
    this.lateSent.add(record.id);
    this.write(frame);
  }

  /** Whether a late frame for `id` waits in the catch-up buffer. */
  holdsLate(id: number): boolean {
    return this.#pendingLate.has(id);
  }

  heartbeat(frame: string): void {
    this.write(frame, 0);
  }

  #hold(id: number, frame: string, late: boolean): void {
    if (late) this.#pendingLate.add(id);
    this.#pending.push({ id, frame, late });
    this.#pendingBytes += frame.length;
    if (this.#pendingBytes > this.bufferBytes) this.end('slow_client');
  }

  /** Catch-up done: send what arrived meanwhile, then go live. */
  goLive(): void {
    this.live = true;
    for (const p of this.#pending.splice(0)) {
      if (p.late) {
        if (!this.lateSent.has(p.id)) {
          this.lateSent.add(p.id);
          this.write(p.frame);
        }
      } else if (p.id > this.sentMax) {
        this.sentMax = p.id;
        this.write(p.frame);
      }
    }
    this.#pendingBytes = 0;
    this.#pendingLate.clear();
  }

  /** Writes `frames` frames in one chunk; returns false when the socket asks to wait for 'drain'. */
  write(chunk: string, frames = 1): boolean {
    if (this.#ended) return false;
    const ok = this.res.write(chunk);
    this.sent += frames;
    if (this.live && this.res.writableLength > this.bufferBytes) this.end('slow_client');
    return ok;
  }

  end(reason: EndReason, finalFrame?: string): void {
    if (this.#ended) return;
    this.#ended = reason;
    if (reason === 'slow_client') this.res.destroy();
    else if (finalFrame) this.res.end(finalFrame);
    else this.res.end();
    this.#onEnd(reason);
  }
}

export type EventsHandler = (ctx: Koa.Context, claims: Claims) => Promise<void>;

export function createEventsHandler(deps: EventsDeps): EventsHandler & { closeAll(): void } {
  const { hub, pool, log } = deps;
  const now = deps.now ?? Date.now;
  const open = new Set<SseConnection>();

  const handler = async (ctx: Koa.Context, claims: Claims) => {
    const resumeAfter = parseResume(ctx);
    const registeredAt = hub.lastId;
    if (registeredAt === undefined) throw new UpstreamError('UPSTREAM_UNAVAILABLE', 'the event stream is not ready');

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
    const conn = new SseConnection(res, resumeAfter, registeredAt, deps.bufferBytes, (reason) => {
      hub.remove(conn);
      open.delete(conn);
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
    });
    res.once('close', () => conn.end('client_closed'));
    open.add(conn);
    hub.add(conn);
    log.info('sse_client_connected', {
      subject,
      remote,
      resume_after: resumeAfter ?? null,
      hub_last_id: registeredAt,
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

    if (resumeAfter !== undefined && resumeAfter < registeredAt) {
      await catchUp(conn, resumeAfter, registeredAt);
    }
    if (!conn.ended) conn.goLive();
    await done;
  };

  async function catchUp(conn: SseConnection, after: number, upTo: number): Promise<void> {
    const t0 = performance.now();
    let cursor = after;
    let rows = 0;
    try {
      for (;;) {
        const page = await rowsAfter(pool, cursor, CATCH_UP_PAGE, upTo);
        if (conn.ended) return;
        if (page.length === 0) break;
        let chunk = '';
        for (const row of page) {
          chunk += eventFrame(row);
          if (hub.isWatched(row.id) || conn.holdsLate(row.id)) conn.lateSent.add(row.id);
        }
        cursor = page[page.length - 1]!.id;
        rows += page.length;
        if (!conn.write(chunk, page.length)) {
          await new Promise<void>((resolve) => {
            const go = () => (conn.res.off('drain', go), conn.res.off('close', go), resolve());
            conn.res.on('drain', go);
            conn.res.on('close', go);
          });
        }
        conn.sentMax = Math.max(conn.sentMax, cursor);
        if (page.length < CATCH_UP_PAGE) break;
      }
    } catch (err) {
      log.warning('sse_replay_failed', { after, error: err });
      conn.end('server_closing');
      return;
    }
    log.info('sse_replay', { after, up_to: upTo, rows, ms: Math.round(performance.now() - t0) });
  }

  return Object.assign(handler, {
    closeAll() {
      for (const c of [...open]) c.end('server_closing');
    },
  });
}
