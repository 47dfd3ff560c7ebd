import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import zlib from 'node:zlib';
import { insertSource } from '../support/fixtures.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import { writeSyncFiles } from '../support/graph-data.ts';

/** The bytes on the wire and the headers; nothing decoded. */
function raw(url: string, acceptEncoding: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(parts) }));
      })
      .on('error', reject);
  });
}

describe('graph component behind the real gateway: compressed merged graph', () => {
  let app: GraphTestApp;
  let gw: TestGateway;
  let path: string;

  before(async () => {
    app = await startGraphTestApp();
    const src = await insertSource(app.db.pool);
    const files = Array.from({ length: 200 }, (_, i) => ({
      path: `pkg/f${i}.ts`,
      deps: i > 0 ? [[`pkg/f${i - 1}.ts`, 1] as [string, number]] : [],
    }));
    const { syncId } = await writeSyncFiles(app.db.pool, src, files);
    path = `/api/graph?sync_ids=${syncId}`;
    gw = await startGateway({
      DATABASE_URL: app.db.url,
      GRAPH_SERVICE_URL: app.url,
      INGESTION_SERVICE_URL: app.ingestion!.url,
      AUTH_DISABLED: 'true',
    });
  });
  after(async () => {
    await gw.close();
    await app.close();
  });

  it('br and gzip bodies and their Content-Encoding reach the client unchanged', async () => {
    const plain = JSON.parse((await raw(app.url + path, 'identity')).bytes.toString('utf8')) as { nodes: unknown[] };
    assert.equal(plain.nodes.length, 200);
    for (const [encoding, decode] of [
      ['br', zlib.brotliDecompressSync],
      ['gzip', zlib.gunzipSync],
    ] as const) {
      const res = await raw(gw.url + path, encoding);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-encoding'], encoding);
      assert.match(res.headers.vary ?? '', /accept-encoding/i);
      const got = JSON.parse(decode(res.bytes).toString('utf8')) as { nodes: unknown[]; edges: unknown[] };
      assert.deepEqual(got.nodes, plain.nodes);
      assert.equal(got.edges.length, 199);
    }
  });
});
