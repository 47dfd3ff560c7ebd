// The operators' view in-process (docs/deployment.md): /ready apart from /health, /metrics with route templates
// instead of raw paths, the gateway's operators' port apart from its public one, and the request id from the caller
// through the gateway to the upstream and into the log lines. Real database, Temporal, model-host stand-in.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { EmbeddingClient } from '../../lib/embeddings.ts';
import { encodeNodeId } from '../../lib/node-id.ts';
import { exposition } from '../../lib/metrics.ts';
import { collectStorageMetrics } from '../../graph-api/storage-metrics.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import { closedPort, startUpstream, type TestUpstream } from '../support/upstream.ts';
import { waitFor } from '../support/wait.ts';

const metricsText = async () => (await exposition()).body;

describe('graph and ingestion components: /ready, /metrics, request ids', () => {
  let app: GraphTestApp;
  before(async () => {
    app = await startGraphTestApp();
  });
  after(() => app?.close());

  it('answers /ready with each check, apart from /health', async () => {
    const graph = await fetch(`${app.url}/ready`);
    assert.equal(graph.status, 200);
    assert.deepEqual(await graph.json(), { status: 'ready', checks: { database: 'ok' } });
    const ingestion = await fetch(`${app.ingestion!.url}/ready`);
    assert.equal(ingestion.status, 200);
    assert.deepEqual(await ingestion.json(), { status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
    assert.deepEqual(await (await fetch(`${app.url}/health`)).json(), { status: 'ok' });
  });

  it('counts requests by route template and status, never by the raw path', async () => {
    const sourceId = randomUUID();
    const node = encodeNodeId(sourceId, 'deep/dir/file.ts');
    assert.equal((await app.get(`/api/graph/nodes/${node}/file`)).status, 404);
    assert.equal((await app.get(`/api/sources/${sourceId}`)).status, 404);
    assert.equal((await app.get('/api/sources')).status, 200);
    const res = await fetch(`${app.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(
      text,
      /^ckg_http_requests_total\{method="GET",route="\/api\/graph\/nodes\/\{node_id\}\/file",status="404"\} \d+$/m,
    );
    assert.match(
      text,
      /^ckg_http_requests_total\{method="GET",route="\/api\/sources\/:source_id",status="404"\} \d+$/m,
    );
    assert.match(text, /^ckg_http_request_duration_seconds_count\{method="GET",route="\/api\/sources",status="200"\}/m);
    assert.match(text, /^ckg_db_pool_acquire_seconds_count\{pool="ckg-test"\} \d+$/m);
    assert.ok(!text.includes(sourceId), 'no id in any label');
    assert.ok(!text.includes('deep/dir'), 'no path in any label');
  });

  it('says what history costs: database size, rows and bytes per graph label, syncs per source and status', async () => {
    const source = await app.db.pool.query<{ id: string }>(
      `INSERT INTO sources (owner, name, url) VALUES ('metrics', 'kept', 'https://example.invalid/x.git') RETURNING id`,
    );
    await app.db.pool.query(
      `INSERT INTO sync_runs (source_id, status, pinned) VALUES ($1, 'completed', true), ($1, 'completed', false),
              ($1, 'cleaned', false)`,
      [source.rows[0]!.id],
    );
    // The figures are read at most once a minute; an earlier test's scrape read them before these rows existed.
    collectStorageMetrics(app.db.pool);
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
    assert.ok(value(/^ckg_database_size_bytes (\d+)$/m) > 1_000_000, 'database size');
    for (const label of ['File', 'Symbol', 'depends_on', 'defines']) {
      assert.ok(value(new RegExp(`^ckg_graph_label_rows\\{label="${label}"\\} (\\d+)$`, 'm')) >= 0, label);
      assert.ok(value(new RegExp(`^ckg_graph_label_bytes\\{label="${label}"\\} (\\d+)$`, 'm')) > 0, label);
    }
    assert.ok(value(/^ckg_table_bytes\{table="sync_files"\} (\d+)$/m) > 0);
    assert.equal(value(/^ckg_syncs\{source="metrics\/kept",status="completed"\} (\d+)$/m), 2);
    assert.equal(value(/^ckg_syncs\{source="metrics\/kept",status="cleaned"\} (\d+)$/m), 1);
    assert.equal(value(/^ckg_syncs_pinned\{source="metrics\/kept"\} (\d+)$/m), 1);
  });

  it('records model calls: a search embeds its query; an unreachable endpoint counts as a failure', async () => {
    assert.equal((await app.get('/api/graph/search?q=parser')).status, 200);
    assert.match(
      await metricsText(),
      /^ckg_model_request_duration_seconds_count\{endpoint="embeddings",outcome="ok"\} [1-9]\d*$/m,
    );
    const down = new EmbeddingClient({
      url: `http://127.0.0.1:${await closedPort()}/v1/embeddings`,
      model: 'embeddings',
      dimension: 896,
      attempts: 1,
    });
    await assert.rejects(down.embedOne('x'));
    assert.match(
      await metricsText(),
      /^ckg_model_request_failures_total\{endpoint="embeddings",reason="unreachable"\} [1-9]\d*$/m,
    );
  });

  it('returns the caller’s X-Request-Id, replaces an unusable one, and makes one when none is given', async () => {
    const given = await fetch(`${app.url}/api/sources`, { headers: { 'x-request-id': 'abc-123.x:y' } });
    assert.equal(given.headers.get('x-request-id'), 'abc-123.x:y');
    const bad = await fetch(`${app.url}/api/sources`, { headers: { 'x-request-id': 'a b' } });
    assert.match(bad.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const long = await fetch(`${app.url}/api/sources`, { headers: { 'x-request-id': 'x'.repeat(129) } });
    assert.match(long.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const none = await fetch(`${app.ingestion!.url}/api/syncs/not-a-uuid/cancel`, { method: 'POST' });
    assert.equal(none.status, 400);
    assert.match(none.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });
});

describe('gateway: the operators’ port, readiness of its upstreams, request ids forwarded and logged', () => {
  let db: TestDatabase;
  let graph: TestUpstream;
  let ingestion: TestUpstream;
  let gw: TestGateway;
  let down: TestGateway;
  before(async () => {
    db = await createTestDatabase();
    graph = await startUpstream('graph');
    ingestion = await startUpstream('ingestion');
    const env = { DATABASE_URL: db.url, AUTH_DISABLED: 'true' };
    gw = await startGateway({ ...env, GRAPH_SERVICE_URL: graph.url, INGESTION_SERVICE_URL: ingestion.url });
    down = await startGateway({
      ...env,
      GRAPH_SERVICE_URL: `http://127.0.0.1:${await closedPort()}`,
      INGESTION_SERVICE_URL: ingestion.url,
    });
  });
  after(async () => {
    await gw?.close();
    await down?.close();
    await graph?.close();
    await ingestion?.close();
    await db?.drop();
  });

  it('serves /metrics and /ready on the operators’ port only, /health on both', async () => {
    for (const path of ['/metrics', '/ready']) {
      const pub = await fetch(gw.url + path);
      assert.equal(pub.status, 404, `public ${path}`);
    }
    assert.equal((await fetch(`${gw.url}/health`)).status, 200);
    assert.deepEqual(await (await fetch(`${gw.ops.url}/health`)).json(), { status: 'ok' });
    const metrics = await fetch(`${gw.ops.url}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^ckg_sse_clients \d+$/m);
  });

  it('is ready when its database, event listener and upstreams are; 503 naming the one that is not', async () => {
    // The event listener connects in the background after the start.
    let status = 0;
    let report = { status: '', checks: {} as Record<string, string> };
    await waitFor(
      () => `/ready to answer 200 (last: ${status} ${JSON.stringify(report)})`,
      async () => {
        const res = await fetch(`${gw.ops.url}/ready`);
        status = res.status;
        report = (await res.json()) as typeof report;
        return status === 200;
      },
      10_000,
      100,
    );
    assert.deepEqual(report.checks, { database: 'ok', event_stream: 'ok', graph: 'ok', ingestion: 'ok' });

    const res = await fetch(`${down.ops.url}/ready`);
    assert.equal(res.status, 503);
    const bad = (await res.json()) as { status: string; checks: Record<string, string> };
    assert.equal(bad.status, 'not_ready');
    assert.notEqual(bad.checks.graph, 'ok');
    assert.equal(bad.checks.ingestion, 'ok');
    assert.match(await (await fetch(`${down.ops.url}/metrics`)).text(), /^ckg_ready_check_up\{check="graph"\} 0$/m);
  });

  it('forwards the request id upstream, returns it, and logs it', async () => {
    const res = await fetch(`${gw.url}/api/sources?x=1`, { headers: { 'x-request-id': 'trace-42' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-request-id'), 'trace-42');
    const got = graph.received.at(-1)!;
    assert.equal(got.headers['x-request-id'], 'trace-42');
    assert.equal(got.rawHeaders.filter((h) => h.toLowerCase() === 'x-request-id').length, 1, 'sent once');

    const made = await fetch(`${gw.url}/api/graph/stats`, { headers: { 'x-request-id': '<script>' } });
    const id = made.headers.get('x-request-id') ?? '';
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(graph.received.at(-1)!.headers['x-request-id'], id);

    const missing = await fetch(`${gw.url}/no/such/route`, { headers: { 'x-request-id': 'trace-43' } });
    assert.equal(missing.status, 404);
    assert.ok(gw.events('request_rejected').some((l) => l.request_id === 'trace-43'));
    const text = await metricsText();
    assert.match(text, /^ckg_http_requests_total\{method="GET",route="sources",status="200"\} \d+$/m);
    assert.match(text, /^ckg_gateway_upstream_requests_total\{upstream="graph",outcome="2xx"\} \d+$/m);
  });
});
