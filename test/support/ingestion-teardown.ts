/**
 * Answers the one call the graph component makes to the ingestion component (DELETE /ingest/sources/{id}) and
 * records it. Replace with the real ingestion component's app once it lands on main (branch `ingestion`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TeardownStandIn {
  url: string;
  calls: string[];
  status: number;
  close(): Promise<void>;
}

export async function startTeardownStandIn(): Promise<TeardownStandIn> {
  const s: TeardownStandIn = {
    url: '',
    calls: [],
    status: 204,
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer((req, res) => {
    s.calls.push(`${req.method} ${req.url}`);
    res.writeHead(s.status);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return s;
}
