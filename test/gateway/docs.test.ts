import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startUpstream, type TestUpstream } from '../support/upstream.ts';

type Doc = {
  paths: Record<string, Record<string, { summary?: string; responses?: unknown }>>;
  components: Record<string, Record<string, unknown>>;
};

const errRef = (name: string) => ({
  description: 'error',
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
});

const graphDoc = {
  openapi: '3.1.0',
  info: { title: 'graph', version: '1' },
  paths: {
    '/health': { get: { summary: 'graph health', responses: { '200': { description: 'ok' } } } },
    '/api/graph': { get: { summary: 'merged graph', responses: { '400': errRef('Error') } } },
    '/api/sources': {
      get: { summary: 'list sources', responses: { '200': { description: 'ok' } } },
      post: { summary: 'upsert source', responses: { '201': { description: 'ok' } } },
    },
    '/api/syncs': { get: { summary: 'list syncs', responses: { '200': { description: 'ok' } } } },
    '/api/syncs/{sync_id}/issues': { get: { summary: 'issues', responses: { '200': { description: 'ok' } } } },
  },
  components: {
    schemas: {
      Error: { type: 'object', description: 'the graph component error, spelled differently' },
      Source: { type: 'object' },
    },
  },
};

const ingestionDoc = {
  openapi: '3.1.0',
  info: { title: 'ingestion', version: '1' },
  paths: {
    '/health': { get: { summary: 'ingestion health', responses: { '200': { description: 'ok' } } } },
    '/api/syncs': {
      get: { summary: 'not routed here', responses: { '200': { description: 'ok' } } },
      post: { summary: 'create sync', responses: { '201': { description: 'ok' } } },
    },
    '/api/syncs/{sync_id}/cancel': { post: { summary: 'cancel', responses: { '200': { description: 'ok' } } } },
    '/api/schedules/{schedule_id}': { patch: { summary: 'toggle', responses: { '200': { description: 'ok' } } } },
    '/ingest/sources/{source_id}': { delete: { summary: 'teardown', responses: { '204': { description: 'ok' } } } },
  },
  components: { schemas: { Sync: { type: 'object' } } },
};

describe('gateway API reference and CORS', () => {
  let db: TestDatabase;
  let graph: TestUpstream;
  let ingestion: TestUpstream;
  let gw: TestGateway;
  let graphVersion = graphDoc;
  /** The gateway's clock: the wall clock, or a time the cache test sets and moves. */
  let frozen: number | undefined;

  before(async () => {
    db = await createTestDatabase();
    graph = await startUpstream('graph');
    ingestion = await startUpstream('ingestion');
    graph.handle = (req, res) => {
      if (req.url === '/openapi.json') res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(req.url === '/openapi.json' ? graphVersion : { upstream: 'graph' }));
    };
    ingestion.handle = (req, res) => {
      if (req.url === '/openapi.json') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(ingestionDoc));
      } else res.writeHead(404).end();
    };
    gw = await startGateway(
      {
        DATABASE_URL: db.url,
        GRAPH_SERVICE_URL: graph.url,
        INGESTION_SERVICE_URL: ingestion.url,
        KEYCLOAK_URL: 'http://127.0.0.1:1',
        OPENAPI_CACHE_SECONDS: '2',
        CORS_ORIGINS: '["http://app.example"]',
      },
      { now: () => frozen ?? Date.now() },
    );
  });
  after(async () => {
    await gw.close();
    await graph.close();
    await ingestion.close();
    await db.drop();
  });

  const getDoc = async () => {
    const r = await fetch(gw.url + '/openapi.json');
    assert.equal(r.status, 200, 'no token needed');
    return (await r.json()) as Doc;
  };

  it('one document: the gateway paths plus each component operation the gateway routes to it', async () => {
    const doc = await getDoc();
    assert.equal(doc.paths['/health']?.get?.summary, 'Liveness of the gateway (no token needed)');
    assert.ok(doc.paths['/api/events']?.get);
    assert.ok(doc.paths['/auth/{path}']?.get);
    assert.equal(doc.paths['/api/syncs']?.get?.summary, 'list syncs', 'GET /api/syncs from the graph component');
    assert.equal(doc.paths['/api/syncs']?.post?.summary, 'create sync', 'POST /api/syncs from ingestion');
    assert.equal(doc.paths['/api/sources']?.post?.summary, 'upsert source');
    assert.ok(doc.paths['/api/syncs/{sync_id}/cancel']?.post);
    assert.ok(doc.paths['/api/schedules/{schedule_id}']?.patch);
    assert.equal(doc.paths['/ingest/sources/{source_id}'], undefined, 'the internal teardown is not routed');
    assert.ok(doc.paths['/api/syncs/{sync_id}/issues']?.get);
    assert.ok(doc.components.schemas?.Source && doc.components.schemas.Sync);
    // A conflicting component name is renamed and its references follow.
    assert.ok(doc.components.schemas?.Error_graph);
    assert.deepEqual(doc.paths['/api/graph']?.get?.responses, { '400': errRef('Error_graph') });
  });

  it('the merged document is cached briefly, then rebuilt on demand', async () => {
    frozen = Date.now();
    await getDoc();
    graphVersion = {
      ...graphDoc,
      paths: { ...graphDoc.paths, '/api/graph/stats': { get: { summary: 'stats', responses: {} } } },
    } as typeof graphDoc;
    const soon = await getDoc();
    assert.equal(soon.paths['/api/graph/stats'], undefined, 'still the cached copy');
    frozen += 2001; // past OPENAPI_CACHE_SECONDS (2)
    const later = await getDoc();
    frozen = undefined;
    assert.equal(later.paths['/api/graph/stats']?.get?.summary, 'stats');
  });

  it('/docs (Swagger UI) and /redoc (ReDoc) are served from npm packages, nothing from a CDN', async () => {
    for (const page of ['/docs', '/redoc']) {
      const r = await fetch(gw.url + page);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /text\/html/);
      const html = await r.text();
      assert.doesNotMatch(html, /(src|href)="https?:/, 'no external asset');
      const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      assert.ok(assets.length > 0);
      for (const a of assets) {
        const ar = await fetch(gw.url + a);
        assert.equal(ar.status, 200, a);
        assert.ok((await ar.arrayBuffer()).byteLength > 0, a);
      }
    }
    const init = await (await fetch(gw.url + '/docs/init.js')).text();
    assert.match(init, /url: '\/openapi\.json'/);
    const redoc = await (await fetch(gw.url + '/redoc')).text();
    assert.match(redoc, /spec-url="\/openapi\.json"/);
    assert.equal((await fetch(gw.url + '/docs/package.json')).status, 404, 'only the listed files');
  });

  it('CORS: an allowed origin gets its preflight answered without a token and headers on every response', async () => {
    const pre = await fetch(gw.url + '/api/graph/stats', {
      method: 'OPTIONS',
      headers: {
        origin: 'http://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), 'http://app.example');
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /authorization/i);
    const denied = await fetch(gw.url + '/api/graph/stats', { headers: { origin: 'http://app.example' } });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers.get('access-control-allow-origin'), 'http://app.example', 'errors readable too');
  });

  it('CORS: another origin gets no CORS headers', async () => {
    const r = await fetch(gw.url + '/health', { headers: { origin: 'http://evil.example' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), null);
  });
});
