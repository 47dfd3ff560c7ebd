/** A server-sent event client over plain node:http that parses frames, for gateway tests and the benchmark. */
import http from 'node:http';

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
      let buf = '';
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
          poll(() => client.events.length >= n, ms, `${n} events`).then(() => client.events),
        waitForEnd: (ms = 10000) => poll(() => client.ended, ms, 'end of stream'),
      };
      // Linear parsing: frames are cut out of the buffer by index, the remainder is kept once per chunk.
      res.on('data', (chunk: string) => {
        if (client.status !== 200) {
          client.body += chunk;
          return;
        }
        buf += chunk;
        let start = 0;
        let i: number;
        while ((i = buf.indexOf('\n\n', start)) >= 0) {
          const f = parseFrame(buf.slice(start, i));
          start = i + 2;
          client.frames.push(f);
          client.onFrame?.(f);
        }
        buf = buf.slice(start);
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

function parseFrame(block: string): Frame {
  const f: Frame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) f.comment = line.slice(1).trim();
    else {
      const c = line.indexOf(':');
      const k = line.slice(0, c);
      const v = line.slice(c + 1).replace(/^ /, '');
      if (k === 'data') f.data = f.data === undefined ? v : f.data + '\n' + v;
      else if (k === 'id' || k === 'event' || k === 'retry') f[k] = v;
    }
  }
  return f;
}

async function poll(check: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
