/** Real HTTP upstream servers for proxy tests: they record what arrived and answer as told. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface TestUpstream {
  url: string;
  port: number;
  received: Received[];
  /** Replaces the answer; default: 200 JSON `{ upstream: name, method, url }`. */
  handle: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;
  server: http.Server;
  close(): Promise<void>;
}

export async function startUpstream(name: string): Promise<TestUpstream> {
  const up: Partial<TestUpstream> & { received: Received[] } = { received: [] };
  const defaultHandle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ upstream: name, method: req.method, url: req.url }));
  };
  up.handle = defaultHandle;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      up.received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        rawHeaders: req.rawHeaders,
        headers: req.headers,
        body,
      });
      up.handle!(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(up, {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  }) as TestUpstream;
}

/** A port nothing listens on (bound then released). */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
