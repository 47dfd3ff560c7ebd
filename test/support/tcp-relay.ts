/**
 * A TCP relay in front of a real server (PostgreSQL, Temporal) on a port of its own, for outage tests:
 * - down(): refuses connections and cuts the open ones; up() listens again on the same port;
 * - stall(): keeps every connection (and accepts new ones) but passes no byte either way, as a hung server or a
 *   half-open link does; resume() cuts the stalled connections (their streams lost bytes) and relays again;
 * - stallOn(text): a connection stalls from the moment the client sends `text` (e.g. one statement), others relay.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export class TcpRelay {
  #server: net.Server | undefined;
  readonly #sockets = new Set<net.Socket>();
  #stalled = false;
  #stallOn: string | undefined;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** A relay to `host:port` (e.g. TEMPORAL_ADDRESS). */
  static to(address: string): TcpRelay {
    const i = address.lastIndexOf(':');
    return new TcpRelay({ host: address.slice(0, i), port: Number(address.slice(i + 1)) });
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      this.#sockets.add(client).add(upstream);
      let mine = false;
      client.on('data', (chunk: Buffer) => {
        if (this.#stallOn !== undefined && chunk.includes(this.#stallOn)) mine = true;
        if (!this.#stalled && !mine) upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (!this.#stalled && !mine) client.write(chunk);
      });
      const end = () => {
        client.destroy();
        upstream.destroy();
        this.#sockets.delete(client);
        this.#sockets.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((r) => server.listen(this.port, '127.0.0.1', r));
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  stall(): void {
    this.#stalled = true;
  }

  stallOn(text: string | undefined): void {
    this.#stallOn = text;
  }

  resume(): void {
    this.#stalled = false;
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  async down(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    const s = this.#server;
    this.#server = undefined;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}
