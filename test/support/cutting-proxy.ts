/**
 * A TCP proxy in front of the gateway that cuts the first event stream once it has passed an event frame, as a
 * dropped connection would; everything else goes through untouched. It records the request heads of every
 * GET /api/events, so a test can see how the client came back (its Last-Event-ID).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface CuttingProxy {
  url: string;
  /** Request heads of the GET /api/events requests, in order. */
  eventRequests: string[];
  cuts: number;
  close(): Promise<void>;
}

export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const proxy: CuttingProxy = { url: '', eventRequests: [], cuts: 0, close: () => Promise.resolve() };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let isStream = false;
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (text.startsWith('GET /api/events')) {
        isStream = true;
        proxy.eventRequests.push(text.slice(0, text.indexOf('\r\n\r\n')));
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      if (isStream && proxy.cuts === 0 && /(^|\n)id: \d+/.test(chunk.toString('utf8'))) {
        proxy.cuts++;
        // Let the frame reach the client, then drop both sides.
        setTimeout(() => {
          client.destroy();
          upstream.destroy();
        }, 20);
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return proxy;
}
