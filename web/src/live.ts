/**
 * The event stream (`GET /api/events?token=…`: EventSource cannot send headers, so this is the one URL that carries
 * the token). The stream stays open while signed in. After a drop it resumes from the last event id it saw
 * (`last_event_id`, besides the browser's own Last-Event-ID), with a fresh token when the old one expired (an
 * `error` frame with code `token_expired`, or a refused reconnect).
 */
import type { SyncLifecycle, SyncProgress } from '../../lib/api/events.ts';
import type { Auth } from './auth.ts';

/** The payloads of the two sync events (lib/api/events.ts). */
export type LifecycleEvent = SyncLifecycle;
export type ProgressEvent = SyncProgress;

export interface LiveHandlers {
  lifecycle(e: LifecycleEvent): void;
  progress(e: ProgressEvent): void;
  /** Connection state for the status line: 'live', 'reconnecting'. */
  state(s: 'live' | 'reconnecting'): void;
}

/** The event row is the frame's data; its payload carries the fields above. */
function payloadOf<T>(data: string): T | undefined {
  try {
    const row = JSON.parse(data) as { payload?: T } & T;
    return row.payload ?? row;
  } catch {
    return undefined;
  }
}

export interface LiveStream {
  close(): void;
  /** The id of the last frame received (0 before any). */
  lastEventId(): number;
}

export function openLive(auth: Auth, handlers: LiveHandlers): LiveStream {
  let source: EventSource | undefined;
  let lastId: number | undefined;
  let closed = false;
  let retryMs = 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const track = (e: MessageEvent<string>) => {
    const id = Number(e.lastEventId);
    if (Number.isSafeInteger(id) && id > 0 && (lastId === undefined || id > lastId)) lastId = id;
  };

  const reconnect = (fresh: boolean) => {
    source?.close();
    source = undefined;
    if (closed) return;
    handlers.state('reconnecting');
    clearTimeout(timer);
    timer = setTimeout(() => void connect(fresh), retryMs);
    retryMs = Math.min(retryMs * 2, 15_000);
  };

  const connect = async (fresh: boolean) => {
    let token: string;
    try {
      token = fresh ? await auth.refresh() : await auth.token();
    } catch {
      return reconnect(true);
    }
    if (closed) return;
    const q = new URLSearchParams({ token });
    if (lastId !== undefined) q.set('last_event_id', String(lastId));
    const es = new EventSource(`/api/events?${q.toString()}`);
    source = es;
    es.addEventListener('open', () => {
      retryMs = 1000;
      handlers.state('live');
    });
    es.addEventListener('sync_lifecycle', (e: MessageEvent<string>) => {
      track(e);
      const p = payloadOf<LifecycleEvent>(e.data);
      if (p) handlers.lifecycle(p);
    });
    es.addEventListener('sync_progress', (e: MessageEvent<string>) => {
      track(e);
      const p = payloadOf<ProgressEvent>(e.data);
      if (p) handlers.progress(p);
    });
    es.addEventListener('message', track);
    es.addEventListener('error', (e) => {
      const data = (e as MessageEvent<string>).data;
      if (typeof data === 'string') {
        // The gateway's own `event: error` frame: the token expired while the stream was open.
        return reconnect(true);
      }
      // A dropped connection: the browser retries by itself (with Last-Event-ID) unless the retry was refused.
      if (es.readyState === EventSource.CLOSED) reconnect(true);
      else handlers.state('reconnecting');
    });
  };

  void connect(false);
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      source?.close();
    },
    lastEventId: () => lastId ?? 0,
  };
}
