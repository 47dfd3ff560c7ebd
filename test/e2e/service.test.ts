// The whole service end to end, through the gateway only, with tokens from the identity provider (spec parts 4-8):
// a source for a local git repository, a sync followed over server-sent events to completion, then the reads of the
// graph component (graph, node, file, search, summary, stats), authentication failures, and a resumed event stream.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ScheduleNotFoundError, WorkflowNotFoundError } from '@temporalio/client';
import { encodeNodeId } from '../../lib/node-id.ts';
import { defaultIdpConfig } from '../../standins/idp/config.ts';
import { mintPersonToken } from '../../standins/idp/token.ts';
import { STANDIN_MARK } from '../../standins/model-host/chat.ts';
import { connectClient } from '../support/temporal.ts';
import { temporalIdOfSchedule } from '../support/fixtures.ts';
import { createRepo, EXPRESSION_TOOLKIT_FILES, type TestRepo } from '../support/git-repos.ts';
import { startService, type Service } from '../support/service.ts';
import { connectSse, type Frame, type SseClient } from '../support/sse-client.ts';
import { waitFor } from '../support/wait.ts';

/** A small repository: TypeScript and Python files importing each other, a markdown file. */
const FILES: Record<string, string> = {
  ...EXPRESSION_TOOLKIT_FILES,
  'README.md':
    '# Expression toolkit\n\nA tokenizer and a parser in TypeScript, report helpers in Python.\n\n' +
    '## Usage\n\nCall `run` from `src/index.ts`, or `render_report` from `report/render.py`.\n',
  'report/__init__.py': '"""Report helpers."""\n',
};

/** The depends_on edges the imports above must produce (importer -> imported). */
const IMPORTS = [
  'src/index.ts -> src/parser.ts',
  'src/index.ts -> src/tokenizer.ts',
  'src/parser.ts -> src/tokenizer.ts',
  'report/render.py -> report/stats.py',
].sort();

const PHASES = ['starting', 'cloning', 'parsing', 'graphing', 'embedding_summaries', 'embedding_chunks', 'finalizing'];
const SYNC_TIMEOUT_MS = 300_000;

interface EventRow {
  id: number;
  type: string;
  sync_id: string | null;
  source_id: string | null;
  payload: Record<string, unknown>;
  created_at: string;
}

interface Json {
  status: number;
  body: Record<string, unknown>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const rowOf = (f: Frame): EventRow => JSON.parse(f.data ?? 'null') as EventRow;

describe('the service end to end through the gateway', () => {
  let svc: Service;
  let repo: TestRepo;
  let token: string;
  let stream: SseClient;
  let sourceId: string;
  let syncId: string;
  /** The frames of the sync, from the source's creation to its completion, as the first stream saw them. */
  let syncFrames: Frame[];
  const scheduleIds: string[] = [];

  const nodeId = (path: string) => encodeNodeId(sourceId, path);
  const auth = (t = token) => ({ authorization: `Bearer ${t}` });

  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = auth(),
  ): Promise<Json> {
    const res = await fetch(svc.gateway.url + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  }

  async function get(path: string): Promise<Record<string, unknown>> {
    const r = await call('GET', path);
    assert.equal(r.status, 200, `GET ${path}: ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /** An SSE stream through the gateway; retried while the gateway's event hub has not read the database yet (503). */
  async function openStream(headers: Record<string, string>): Promise<SseClient> {
    return waitFor(
      'the event stream to open',
      async () => {
        const s = await connectSse(`${svc.gateway.url}/api/events`, headers);
        if (s.status === 200) return s;
        await s.waitForEnd(5000);
        assert.equal(s.status, 503, `GET /api/events: ${s.status} ${s.body}`);
        return undefined;
      },
      30_000,
    );
  }

  before(async () => {
    // Tokens outlive the longest wait for the sync, so the stream is never ended by an expiry mid-test.
    svc = await startService({ accessTokenTtlSeconds: 3600 });
    repo = createRepo(FILES);
    // A service-account token (client credentials of service-gateway), fetched through the gateway's /auth proxy.
    const res = await fetch(`${svc.gateway.url}/auth/realms/service/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'service-gateway',
        client_secret: svc.idp.gatewayClientSecret,
      }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    token = ((await res.json()) as { access_token: string }).access_token;
  });

  after(async () => {
    stream?.close();
    // Temporal state this test made: a sync workflow left running by a failed step, and schedules.
    if (sourceId || scheduleIds.length > 0) {
      const { client, close } = await connectClient();
      try {
        if (sourceId) {
          const handle = client.workflow.getHandle(sourceId);
          const running = await handle.describe().then(
            (d) => d.status.name === 'RUNNING',
            (err: unknown) => {
              if (err instanceof WorkflowNotFoundError) return false;
              throw err;
            },
          );
          if (running) await handle.terminate('e2e test cleanup');
        }
        for (const id of scheduleIds) {
          await client.schedule
            .getHandle(id)
            .delete()
            .catch((err: unknown) => {
              if (!(err instanceof ScheduleNotFoundError)) throw err;
            });
        }
      } finally {
        await close();
      }
    }
    await svc?.close();
    repo?.remove();
  });

  it('refuses a request without a token (401 UNAUTHORIZED) and an expired person token (401 token_expired)', async () => {
    const none = await call('GET', '/api/graph/stats', undefined, {});
    assert.equal(none.status, 401);
    assert.equal((none.body.error as { code: string }).code, 'UNAUTHORIZED');

    const idpConfig = { ...defaultIdpConfig, stateDir: svc.idpStateDir };
    const expired = await mintPersonToken(idpConfig, 'alice', { ttlSeconds: -30, issuer: svc.idp.issuer });
    const old = await call('GET', '/api/graph/stats', undefined, auth(expired));
    assert.equal(old.status, 401);
    assert.equal((old.body.error as { code: string }).code, 'token_expired');
    const sse = await connectSse(`${svc.gateway.url}/api/events`, auth(expired));
    await sse.waitForEnd();
    assert.equal(sse.status, 401, 'an expired token on the event stream is refused before it opens');
    assert.equal((JSON.parse(sse.body) as { error: { code: string } }).error.code, 'token_expired');

    // The same person with a live token is let in: only the expiry was at fault.
    const fresh = await mintPersonToken(idpConfig, 'alice', { ttlSeconds: 120, issuer: svc.idp.issuer });
    assert.equal((await call('GET', '/api/graph/stats', undefined, auth(fresh))).status, 200);
    // And the service-account token from the provider.
    assert.equal((await call('GET', '/api/graph/stats')).status, 200);
  });

  it(
    'creates a source, starts a sync and follows it over SSE to completion',
    { timeout: SYNC_TIMEOUT_MS + 60_000 },
    async () => {
      stream = await openStream(auth());
      assert.match(String(stream.headers['content-type']), /^text\/event-stream/);

      const created = await call('POST', '/api/sources', {
        source_type: 'github_repo',
        owner: 'acme',
        name: 'expressions',
        url: repo.dir,
        default_branch: 'main',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      sourceId = String(created.body.id);
      assert.equal(created.body.url, repo.dir);

      const started = await call('POST', '/api/syncs', { source_id: sourceId, triggered_by: 'e2e' });
      assert.equal(started.status, 201, JSON.stringify(started.body));
      syncId = String(started.body.id);
      assert.equal(started.body.status, 'pending');
      assert.equal(started.body.source_id, sourceId);
      assert.equal(started.body.triggered_by, 'e2e');

      const completedFrame = (f: Frame) =>
        f.event === 'sync_lifecycle' && rowOf(f).sync_id === syncId && rowOf(f).payload.status === 'completed';
      const failedFrame = (f: Frame) =>
        f.event === 'sync_lifecycle' &&
        rowOf(f).sync_id === syncId &&
        ['failed', 'cancelled'].includes(String(rowOf(f).payload.status));
      await waitFor(
        'the completed sync_lifecycle frame',
        () => {
          const bad = stream.events.find(failedFrame);
          if (bad) throw new Error(`the sync ended ${String(rowOf(bad).payload.status)}: ${bad.data}`);
          if (stream.ended) throw new Error('the event stream ended early');
          return stream.events.some(completedFrame);
        },
        SYNC_TIMEOUT_MS,
      );
      // source_changed (synced) is written in the same transaction as the completed lifecycle event, right after it.
      await waitFor(
        'the synced source_changed frame',
        () => stream.events.some((f) => f.event === 'source_changed' && rowOf(f).payload.change === 'synced'),
        30_000,
      );
      syncFrames = [...stream.events];

      // Frames: the first one sets the reconnection delay; then an id, an event name and the row as JSON.
      assert.equal(stream.frames[0]?.retry, '2000');
      const ids = syncFrames.map((f) => Number(f.id));
      for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, `ids increase: ${ids.join(',')}`);
      for (const f of syncFrames) {
        const row = rowOf(f);
        assert.equal(String(row.id), f.id, 'the frame id is the row id');
        assert.equal(row.type, f.event, 'the event name is the row type');
        assert.deepEqual(Object.keys(row).sort(), ['created_at', 'id', 'payload', 'source_id', 'sync_id', 'type']);
        assert.equal(row.source_id, sourceId);
      }
      // data is the stored event row, and the stream has every row of the database in order (no gap).
      const stored = await svc.db.pool.query<Omit<EventRow, 'created_at'> & { id: string; created_at: Date }>(
        `SELECT id, type, sync_id, source_id, payload, created_at FROM events ORDER BY id`,
      );
      assert.deepEqual(
        syncFrames.map((f) => {
          const r = rowOf(f);
          return { ...r, created_at: new Date(r.created_at).getTime() };
        }),
        stored.rows.map((r) => ({ ...r, id: Number(r.id), created_at: r.created_at.getTime() })),
      );

      // The sequence: source created; lifecycle pending -> running -> completed with progress in between; synced.
      const kinds = syncFrames.map((f) => {
        const r = rowOf(f);
        if (f.event === 'sync_lifecycle') return `lifecycle:${String(r.payload.status)}`;
        if (f.event === 'source_changed') return `source:${String(r.payload.change)}`;
        return f.event!;
      });
      assert.equal(kinds[0], 'source:created');
      assert.equal(kinds[1], 'lifecycle:pending');
      assert.equal(kinds.at(-2), 'lifecycle:completed');
      assert.equal(kinds.at(-1), 'source:synced');
      const lifecycle = syncFrames.filter((f) => f.event === 'sync_lifecycle').map((f) => rowOf(f).payload);
      assert.deepEqual(
        lifecycle.map((p) => [p.previous_status, p.status]),
        [
          [null, 'pending'],
          ['pending', 'running'],
          ['running', 'completed'],
        ],
      );
      for (const p of lifecycle) {
        assert.equal(p.sync_id, syncId);
        assert.equal(p.source_id, sourceId);
        assert.equal(p.triggered_by, 'e2e');
      }
      const running = kinds.indexOf('lifecycle:running');
      const middle = kinds.slice(running + 1, -2);
      assert.ok(middle.length > 0 && middle.every((k) => k === 'sync_progress'), kinds.join(', '));
      assert.ok(
        kinds.slice(2, running).every((k) => k === 'sync_progress'),
        `only progress before running: ${kinds.join(', ')}`,
      );

      const progress = syncFrames.filter((f) => f.event === 'sync_progress').map((f) => rowOf(f).payload);
      let phaseAt = 0;
      for (const p of progress) {
        assert.equal(p.sync_id, syncId);
        const at = PHASES.indexOf(String(p.phase));
        assert.ok(at >= phaseAt, `phases move forward: ${progress.map((x) => String(x.phase)).join(', ')}`);
        phaseAt = at;
        assert.ok(Number.isInteger(p.progress_done) && Number.isInteger(p.progress_total));
        assert.ok(Number(p.progress_done) <= Number(p.progress_total), JSON.stringify(p));
      }
      const phases = new Set(progress.map((p) => String(p.phase)));
      for (const phase of ['cloning', 'parsing', 'graphing', 'embedding_summaries', 'embedding_chunks']) {
        assert.ok(phases.has(phase), `a progress event for ${phase}: ${[...phases].join(', ')}`);
      }
      // Each phase starts at 0 and ends with its last unit done (spec: one event at each phase start and end).
      const files = Object.keys(FILES).length;
      const units: Record<string, number> = {
        cloning: 1,
        parsing: files,
        graphing: files,
        embedding_summaries: files,
        embedding_chunks: Number((lifecycle.at(-1)!.stats as { chunks: number }).chunks),
      };
      for (const [phase, total] of Object.entries(units)) {
        const of = progress.filter((p) => p.phase === phase).map((p) => [p.progress_done, p.progress_total]);
        assert.deepEqual(of[0], [0, total], `${phase} starts at 0/${total}`);
        assert.deepEqual(of.at(-1), [total, total], `${phase} ends at ${total}/${total}`);
      }

      const completed = lifecycle.at(-1)!;
      assert.equal((completed.stats as { files: number }).files, Object.keys(FILES).length);
      const synced = rowOf(syncFrames.at(-1)!).payload;
      assert.equal(synced.last_sync_id, syncId);
    },
  );

  it('GET /api/syncs/{id}: completed, with the stats of the lifecycle event', async () => {
    const run = await get(`/api/syncs/${syncId}`);
    assert.equal(run.id, syncId);
    assert.equal(run.status, 'completed');
    assert.equal(run.error, null);
    assert.equal(run.triggered_by, 'e2e');
    assert.ok(Date.parse(String(run.completed_at)) >= Date.parse(String(run.started_at)));
    const stats = run.stats as {
      commit_sha: string;
      files: number;
      chunks: number;
      symbols: number;
      vertices: number;
      edges: { depends_on: number; defines: number };
      embeddings: { files_embedded: number; files_failed: number; chunks_embedded: number; skipped: boolean };
      issues: { recorded: number };
    };
    assert.equal(stats.commit_sha, repo.head);
    assert.equal(stats.files, 7);
    assert.equal(stats.edges.depends_on, IMPORTS.length);
    assert.equal(stats.edges.defines, stats.symbols);
    assert.equal(stats.vertices, stats.files + stats.symbols);
    assert.equal(stats.embeddings.skipped, false);
    assert.equal(stats.embeddings.files_embedded, 7);
    assert.equal(stats.embeddings.files_failed, 0);
    assert.equal(stats.embeddings.chunks_embedded, stats.chunks);
    assert.equal(stats.issues.recorded, 0);
    const completed = syncFrames.find((f) => f.event === 'sync_lifecycle' && rowOf(f).payload.status === 'completed')!;
    assert.deepEqual(rowOf(completed).payload.stats, run.stats);

    const source = await get(`/api/sources/${sourceId}`);
    assert.equal(source.last_sync_id, syncId);
    const list = await get(`/api/syncs?source_id=${sourceId}`);
    assert.deepEqual(
      (list.items as Array<{ id: string }>).map((s) => s.id),
      [syncId],
    );
  });

  it('GET /api/graph?sync_ids=: every file a node, the imports as edges, integer meta', async () => {
    const g = (await get(`/api/graph?sync_ids=${syncId}`)) as {
      nodes: Array<{ data: Record<string, unknown> }>;
      edges: Array<{ data: Record<string, unknown> }>;
      meta: Record<string, unknown>;
    };
    assert.deepEqual(g.nodes.map((n) => n.data.id).sort(), Object.keys(FILES).map(nodeId).sort());
    for (const { data } of g.nodes) {
      const path = String(data.file_path);
      assert.equal(data.id, nodeId(path));
      assert.equal(data.name, path.split('/').pop());
      assert.equal(data.source_id, sourceId);
      assert.deepEqual(data.loaded_sync_ids, [syncId]);
      assert.equal(data.latest_sync_id, syncId);
      assert.equal(data.divergent, false);
      assert.equal(typeof data.domain, 'string');
    }
    const types = new Map(g.nodes.map((n) => [String(n.data.file_path), n.data.type]));
    assert.equal(types.get('README.md'), 'doc');
    assert.equal(types.get('src/parser.ts'), 'source');
    assert.equal(types.get('report/stats.py'), 'source');

    const byId = new Map(Object.keys(FILES).map((p) => [nodeId(p), p]));
    assert.deepEqual(
      g.edges.map((e) => `${byId.get(String(e.data.source))} -> ${byId.get(String(e.data.target))}`).sort(),
      IMPORTS,
    );
    for (const { data } of g.edges) {
      assert.equal(typeof data.weight, 'number');
      assert.ok(Number(data.weight) > 0);
      assert.equal(data.weight_max, data.weight, 'one sync: the sum is the largest');
      assert.deepEqual(data.loaded_sync_ids, [syncId]);
    }
    assert.equal(g.meta.node_count, 7);
    assert.equal(g.meta.edge_count, IMPORTS.length);
    assert.equal(g.meta.sync_count, 1);
    assert.ok(Number.isInteger(g.meta.query_ms) && Number(g.meta.query_ms) >= 0);
  });

  it('GET /api/graph/nodes/{node_id}: the file and its neighbours in and out, with labels', async () => {
    // The node id carries slashes: sent as it is, the path parameter takes them.
    const d = (await get(`/api/graph/nodes/${nodeId('src/parser.ts')}`)) as {
      node: Record<string, unknown>;
      neighbors: Array<Record<string, unknown>>;
    };
    const text = FILES['src/parser.ts']!;
    assert.equal(d.node.id, nodeId('src/parser.ts'));
    assert.equal(d.node.name, 'parser.ts');
    assert.equal(d.node.type, 'source');
    assert.equal(d.node.language, 'typescript');
    assert.equal(d.node.size_bytes, Buffer.byteLength(text));
    assert.equal(d.node.line_count, text.split('\n').length - 1);
    assert.equal(d.node.imports_count, 1);
    assert.equal(d.node.content_hash, sha256(text));
    assert.equal(d.node.description, null);
    assert.equal(d.node.sync_id, syncId);

    const files = d.neighbors
      .filter((n) => n.label === 'File')
      .map((n) => `${String(n.direction)} ${String(n.rel_type)} ${String(n.node_id)}`)
      .sort();
    assert.deepEqual(files, [
      `in depends_on ${nodeId('src/index.ts')}`,
      `out depends_on ${nodeId('src/tokenizer.ts')}`,
    ]);
    const symbols = d.neighbors.filter((n) => n.label === 'Symbol');
    assert.ok(symbols.length >= 1);
    for (const s of symbols) {
      assert.equal(s.rel_type, 'defines');
      assert.equal(s.direction, 'out');
    }
    const parserClass = symbols.find((s) => s.name === 'ExpressionParser');
    assert.ok(parserClass, JSON.stringify(symbols));
    assert.equal(parserClass.kind, 'class');
    assert.equal(parserClass.line, 3);
    for (const n of d.neighbors) assert.equal(typeof n.weight, 'number');
  });

  it('GET /api/graph/nodes/{node_id}/file: every file byte for byte, chunk_count, not truncated', async () => {
    for (const [path, text] of Object.entries(FILES)) {
      const f = await get(`/api/graph/nodes/${encodeURIComponent(nodeId(path))}/file`);
      assert.equal(f.content, text, `${path} reconstructed`);
      assert.equal(f.truncated, false);
      assert.ok(Number.isInteger(f.chunk_count) && Number(f.chunk_count) >= 1, `${path}: ${String(f.chunk_count)}`);
      assert.equal(f.sync_id, syncId);
    }
    const chunks = await svc.db.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM content_chunks c JOIN file_records r ON r.id = c.file_id
        WHERE r.sync_id = $1 AND r.file_path = 'README.md'`,
      [syncId],
    );
    const readme = await get(`/api/graph/nodes/${encodeURIComponent(nodeId('README.md'))}/file`);
    assert.equal(readme.chunk_count, Number(chunks.rows[0]!.n));
  });

  it('GET /api/graph/search: the file defining the identifier ranks first, distances ascending', async () => {
    const r = (await get('/api/graph/search?q=compute_histogram')) as {
      results: Array<{ id: string; name: string; type: string; language: string; distance: number }>;
    };
    assert.ok(r.results.length >= 2, JSON.stringify(r));
    assert.equal(r.results[0]!.id, nodeId('report/stats.py'), JSON.stringify(r.results.map((x) => x.id)));
    assert.equal(r.results[0]!.name, 'stats.py');
    assert.equal(r.results[0]!.type, 'source');
    assert.equal(r.results[0]!.language, 'python');
    for (let i = 1; i < r.results.length; i++) assert.ok(r.results[i]!.distance >= r.results[i - 1]!.distance);
    const docs = (await get('/api/graph/search?q=expression%20toolkit%20usage&type=doc&limit=5')) as {
      results: Array<{ id: string; type: string }>;
    };
    assert.deepEqual(
      docs.results.map((x) => x.id),
      [nodeId('README.md')],
    );
    const queries = svc.modelHost.stats().log.filter((l) => l.endpoint === 'embeddings' && l.queryInputs === 1);
    assert.equal(queries.length, 2, 'each query embedded once, as a search_query');
  });

  it('GET /api/graph/nodes/{node_id}/summary: from the model, then from the cache', async () => {
    const before = svc.modelHost.stats().log.filter((l) => l.endpoint === 'chat').length;
    const path = `/api/graph/nodes/${encodeURIComponent(nodeId('src/parser.ts'))}/summary`;
    const first = await get(path);
    assert.equal(first.source, 'llm', JSON.stringify(first));
    assert.equal(first.node_id, nodeId('src/parser.ts'));
    assert.equal(first.sync_id, syncId);
    assert.equal(typeof first.summary, 'string');
    assert.ok(String(first.summary).startsWith(STANDIN_MARK), String(first.summary));
    assert.ok(String(first.summary).includes('ExpressionParser'), 'the file text reached the model');
    assert.ok(String(first.summary).includes('src/tokenizer.ts'), 'the graph context reached the model');
    assert.equal(first.attempts, 1);

    const chat = svc.modelHost.stats().log.filter((l) => l.endpoint === 'chat');
    assert.equal(chat.length, before + 1);
    const call = chat.at(-1)!;
    assert.equal(call.status, 200);
    assert.equal(call.temperature, 0.2);
    assert.equal(call.maxTokens, 400);
    assert.equal(call.enableThinking, false);
    assert.equal(call.model, 'dense');

    const second = await get(path);
    assert.equal(second.source, 'cache');
    assert.equal(second.summary, first.summary);
    assert.equal(second.generated_at, first.generated_at);
    assert.equal(svc.modelHost.stats().log.filter((l) => l.endpoint === 'chat').length, before + 1, 'no model call');

    const detail = (await get(`/api/graph/nodes/${encodeURIComponent(nodeId('src/parser.ts'))}`)) as {
      node: Record<string, unknown>;
    };
    assert.equal(detail.node.description, first.summary);
    assert.equal(detail.node.description_generated_at, first.generated_at);
  });

  it('GET /api/graph/stats: counts of the synced files and of every edge', async () => {
    const run = await get(`/api/syncs/${syncId}`);
    const stats = run.stats as { symbols: number; edges: Record<string, number> };
    const s = (await get('/api/graph/stats')) as {
      nodes_by_type: Record<string, number>;
      total_nodes: number;
      total_edges: number;
      edges_by_label: Record<string, number>;
    };
    assert.deepEqual(s.nodes_by_type, {
      source: 6,
      test: 0,
      config: 0,
      script: 0,
      doc: 1,
      data: 0,
      asset: 0,
      service: 0,
    });
    assert.equal(s.total_nodes, 7);
    // Every label counted: the file graph's and the symbol graph's (issue 28), as the sync's stats counted them.
    const byLabel = Object.fromEntries(Object.entries(s.edges_by_label).filter(([, n]) => n > 0));
    const written = Object.fromEntries(Object.entries(stats.edges).filter(([, n]) => n > 0));
    assert.deepEqual(byLabel, written);
    assert.equal(byLabel.depends_on, IMPORTS.length);
    assert.equal(byLabel.defines, stats.symbols);
    assert.ok((byLabel.calls ?? 0) > 0, 'run() calls parse() and tokenizeSource(): calls edges are counted');
    assert.equal(
      s.total_edges,
      Object.values(byLabel).reduce((x, y) => x + y, 0),
    );
  });

  it('resuming with Last-Event-ID replays exactly the rest of the sync, then goes live', async () => {
    const cut = Math.floor(syncFrames.length / 2);
    const resumeAfter = syncFrames[cut]!.id!;
    const rest = syncFrames.slice(cut + 1);
    const resumed = await openStream({ ...auth(), 'last-event-id': resumeAfter });
    try {
      await resumed.waitForEvents(rest.length, 30_000);
      // A new event after the replay: the upsert of the source. It must follow the replayed frames at once, on both
      // streams: nothing extra, nothing missing, nothing twice.
      const upsert = await call('POST', '/api/sources', {
        source_type: 'github_repo',
        owner: 'acme',
        name: 'expressions',
        url: repo.dir,
        default_branch: 'main',
      });
      assert.equal(upsert.status, 200, JSON.stringify(upsert.body));
      await resumed.waitForEvents(rest.length + 1, 30_000);
      await stream.waitForEvents(syncFrames.length + 1, 30_000);
      const live = stream.events.at(-1)!;
      assert.equal(live.event, 'source_changed');
      assert.equal(rowOf(live).payload.change, 'updated');
      const strip = (f: Frame) => ({ id: f.id, event: f.event, data: f.data });
      assert.deepEqual(resumed.events.map(strip), [...rest, live].map(strip));
      assert.equal(stream.events.length, syncFrames.length + 1);
    } finally {
      resumed.close();
    }
  });

  it('a schedule is created and deleted through the gateway (ingestion routes)', async () => {
    const created = await call('POST', '/api/schedules', {
      source_id: sourceId,
      interval_minutes: 1440,
      config_overrides: {},
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    scheduleIds.push(await temporalIdOfSchedule(svc.db.pool, svc.scheduleIdPrefix, Number(created.body.id)));
    const listed = await get(`/api/schedules?source_id=${sourceId}`);
    assert.deepEqual(
      (listed.items as Array<{ id: number }>).map((s) => s.id),
      [created.body.id],
    );
    const removed = await call('DELETE', `/api/schedules/${String(created.body.id)}`);
    assert.equal(removed.status, 204);
    assert.deepEqual((await get(`/api/schedules?source_id=${sourceId}`)).items, []);
  });

  it('deleting the source removes its syncs and graph', async () => {
    const removed = await call('DELETE', `/api/sources/${sourceId}`);
    assert.equal(removed.status, 204, JSON.stringify(removed.body));
    assert.equal((await call('GET', `/api/syncs/${syncId}`)).status, 404);
    const graph = await call('GET', `/api/graph?sync_ids=${syncId}`);
    assert.equal(graph.status, 404);
    const s = (await get('/api/graph/stats')) as { total_nodes: number; total_edges: number };
    assert.deepEqual([s.total_nodes, s.total_edges], [0, 0]);
  });
});
