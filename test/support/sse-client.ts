/**
 * A server-sent event client over plain node:http, for gateway tests and the benchmarks: frames parsed by the
 * service's one SSE parser (lib/api/sse.ts, eventsource-parser), comments and retry hints kept as frames too.
 */
import http from 'node:http';
import { sseParser } from '../../lib/api/sse.ts';
import { waitFor } from './wait.ts';

export interface Frame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  retry?: string;
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  frames: Frame[];
  /** Frames with an event field (not comments or retry). */
  readonly events: Frame[];
  ended: boolean;
  onFrame?: (f: Frame) => void;
  close(): void;
  /** Resolves when `n` event frames have arrived. */
  waitForEvents(n: number, ms?: number): Promise<Frame[]>;
  waitForEnd(ms?: number): Promise<void>;
  /** The body of a non-200 response. */
  body: string;
}

export function connectSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames: [],
        get events() {
          return client.frames.filter((f) => f.event !== undefined);
        },
        ended: false,
        body: '',
        close: () => req.destroy(),
        waitForEvents: (n, ms = 10000) =>
          waitFor(`${n} events`, () => client.events.length >= n, ms, 5).then(() => client.events),
        waitForEnd: (ms = 10000) => waitFor('end of stream', () => client.ended, ms, 5).then(() => undefined),
      };
      const push = (f: Frame) => {
        client.frames.push(f);
        client.onFrame?.(f);
      };
      const parser = sseParser({
        event: push,
        comment: (comment) => push({ comment }),
        retry: (ms) => push({ retry: String(ms) }),
      });
      res.on('data', (chunk: string) => {
        if (client.status !== 200) client.body += chunk;
        else parser.feed(chunk);
      });
      const end = () => (client.ended = true);
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
      resolve(client);
    });
    req.on('error', reject);
  });
}
