/** Server-sent event frames (text/event-stream). */
import type { EventRecord } from './store.ts';

const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ');
const dataLines = (data: string) =>
  data.includes('\n') || data.includes('\r')
    ? data
        .split(/\r\n|\r|\n/)
        .map((l) => `data: ${l}\n`)
        .join('')
    : `data: ${data}\n`;

/**
 * `id: <row id>`, `event: <type>`, `data: <row as JSON>`. A late frame (a row whose id is below ids already sent,
 * see EventHub) carries no `id:` line, so the client's Last-Event-ID does not move backwards.
 */
export function eventFrame(e: EventRecord, options: { late?: boolean } = {}): string {
  return `${options.late ? '' : `id: ${e.id}\n`}event: ${oneLine(e.type)}\n${dataLines(e.data)}\n`;
}

export const HEARTBEAT_FRAME = ': heartbeat\n\n';

export function errorFrame(code: string): string {
  return `event: error\ndata: ${JSON.stringify({ code })}\n\n`;
}

/** Sent first: how long a browser's EventSource waits before reconnecting. */
export const RETRY_FRAME = 'retry: 2000\n\n';

/**
 * Sent before the catch-up when the client resumes from an id whose successors were pruned (issue 30): the rows
 * after `lastEventId` up to `prunedThrough` are gone, so the client should reload the state it keeps (syncs,
 * sources) and then trust the stream again; the catch-up of what is kept and the live stream follow. No `id:` line:
 * a client that reconnects before the next frame resumes from the same id and is told again.
 */
export function eventsMissedFrame(lastEventId: number, prunedThrough: number): string {
  const data = { code: 'events_missed', last_event_id: lastEventId, pruned_through: prunedThrough };
  return `event: events_missed\ndata: ${JSON.stringify(data)}\n\n`;
}
