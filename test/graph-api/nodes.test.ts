import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { insertSource } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import type { FileBody, NodeBody, SummaryBody } from '../support/graph-api-types.ts';
import { createSyncRow, writeSyncFiles } from '../support/graph-data.ts';

describe('graph component: node detail, file, greedy node paths (rules 2 and 5)', () => {
  let app: GraphTestApp;
  let src: string;
  let older: string;
  let latest: string;
  const odd = 'src/dir with space/ünïcødé ✓.ts';
  const nid = (path: string) => `src_${src}:${path}`;
  /** Only spaces and non-ASCII escaped: slashes stay literal. */
  const raw = (path: string) => `/api/graph/nodes/${encodeURI(nid(path))}`;
  const enc = (path: string) => `/api/graph/nodes/${encodeURIComponent(nid(path))}`;

  before(async () => {
    app = await startGraphTestApp();
    const db = app.db.pool;
    src = await insertSource(db);
    ({ syncId: older } = await writeSyncFiles(db, src, [{ path: 'lib/a.ts', text: 'old\n' }], { minutesAgo: 60 }));
    ({ syncId: latest } = await writeSyncFiles(
      db,
      src,
      [
        {
          path: 'lib/a.ts',
          text: 'export function main() {}\n',
          deps: [['lib/b.ts', 2]],
          symbols: [{ name: 'main', kind: 'function', line: 1 }],
        },
        { path: 'lib/b.ts' },
        { path: odd, deps: [['lib/a.ts', 3]] },
        { path: 'docs/summary', type: 'doc', language: 'text', text: 'the file called summary\n' },
        { path: 'docs/file', type: 'doc', language: 'text', text: 'the file called file\n' },
        { path: 'readme', type: 'doc', language: 'text', text: 'read me\n' },
      ],
      { minutesAgo: 30 },
    ));
    // Newer but still running: never the default.
    await writeSyncFiles(db, src, [{ path: 'lib/a.ts', text: 'running\n' }], { status: 'running', minutesAgo: 1 });
  });
  after(() => app.close());

  it('node detail uses the newest completed sync containing the file; sync_id picks another', async () => {
    const res = await app.get<NodeBody>(raw('lib/a.ts'));
    assert.equal(res.status, 200);
    const n = res.body.node;
    assert.equal(n.id, nid('lib/a.ts'));
    assert.equal(n.sync_id, latest);
    assert.equal(n.name, 'a.ts');
    assert.equal(n.type, 'source');
    assert.equal(n.language, 'typescript');
    assert.equal(n.size_bytes, 26);
    assert.equal(n.line_count, 1);
    assert.equal(n.imports_count, 1);
    assert.equal(n.description, null);
    assert.match(n.content_hash, /^[0-9a-f]{64}$/);
    const old = await app.get<NodeBody>(`${raw('lib/a.ts')}?sync_id=${older}`);
    assert.equal(old.body.node.sync_id, older);
    assert.notEqual(old.body.node.content_hash, n.content_hash);
  });

  it('neighbours in both directions with the real edge label, symbols included', async () => {
    const res = await app.get<NodeBody>(raw('lib/a.ts'));
    const byKey = new Map(res.body.neighbors.map((x) => [`${x.rel_type}/${x.direction}/${x.name}`, x]));
    assert.equal(res.body.neighbors.length, 3);
    assert.deepEqual(byKey.get('depends_on/out/b.ts'), {
      node_id: nid('lib/b.ts'),
      name: 'b.ts',
      rel_type: 'depends_on',
      weight: 2,
      direction: 'out',
      label: 'File',
      file_path: 'lib/b.ts',
      type: 'source',
    });
    const incoming = byKey.get('depends_on/in/ünïcødé ✓.ts');
    assert.equal(incoming?.node_id, nid(odd));
    assert.equal(incoming?.weight, 3);
    const symbol = byKey.get('defines/out/main');
    assert.equal(symbol?.label, 'Symbol');
    assert.equal(symbol?.kind, 'function');
    assert.equal(symbol?.line, 1);
    assert.match(symbol?.node_id ?? '', /^[0-9a-f-]{36}:main:1$/);
    // The older sync's a.ts has no edges.
    assert.deepEqual((await app.get<NodeBody>(`${raw('lib/a.ts')}?sync_id=${older}`)).body.neighbors, []);
  });

  it('node ids with slashes, spaces and unicode, raw or fully percent-encoded', async () => {
    for (const url of [raw(odd), enc(odd)]) {
      const res = await app.get<NodeBody>(url);
      assert.equal(res.status, 200, url);
      assert.equal(res.body.node.id, nid(odd));
      assert.equal(res.body.neighbors[0]?.node_id, nid('lib/a.ts'));
    }
  });

  it('a file literally named summary or file: the whole path wins, the suffix reads the sub-resource', async () => {
    const asNode = await app.get<NodeBody>(raw('docs/summary'));
    assert.equal(asNode.status, 200);
    assert.equal(asNode.body.node.id, nid('docs/summary'));
    const asNode2 = await app.get<NodeBody>(raw('docs/file'));
    assert.equal(asNode2.body.node.id, nid('docs/file'));

    const itsFile = await app.get<FileBody>(`${raw('docs/summary')}/file`);
    assert.equal(itsFile.status, 200);
    assert.equal(itsFile.body.content, 'the file called summary\n');
    const itsFile2 = await app.get<FileBody>(`${enc('docs/file')}/file`);
    assert.equal(itsFile2.body.content, 'the file called file\n');

    const encodedNode = await app.get<NodeBody>(enc('docs/summary'));
    assert.equal(encodedNode.body.node.id, nid('docs/summary'), '%2F never splits');

    await app.db.pool.query(`UPDATE file_records SET description = 'cached' WHERE file_path = 'docs/summary'`);
    const summary = await app.get<SummaryBody>(`${raw('docs/summary')}/summary`);
    assert.equal(summary.status, 200);
    assert.equal(summary.body.node_id, nid('docs/summary'));
    assert.equal(summary.body.source, 'cache');

    // readme/summary is not a file: it is the summary of readme.
    const readme = await app.get<SummaryBody>(`${raw('readme')}/summary?force=false`);
    assert.equal(readme.body.node_id, nid('readme'));
    assert.equal(readme.body.source, 'llm');
  });

  it('404 for unknown nodes and syncs, 400 for malformed ids and parameters', async () => {
    const missing = await app.get(raw('nope.ts'));
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
    const notInSync = await app.get(`${raw('lib/b.ts')}?sync_id=${older}`);
    assert.equal(notInSync.status, 404);
    const unknownSync = await app.get(`${raw('lib/b.ts')}?sync_id=3f2c8a4e-1b7d-4c2e-9a6f-0d1e2f3a4b5c`);
    assert.equal(unknownSync.status, 404);
    assert.match(unknownSync.body.error.message, /sync/);
    for (const [url, field] of [
      ['/api/graph/nodes/garbage', 'node_id'],
      ['/api/graph/nodes/src_123:x', 'node_id'],
      ['/api/graph/nodes/%E0%A4%A', 'node_id'],
      [`${raw('lib/a.ts')}?sync_id=nope`, 'sync_id'],
      [`${raw('lib/a.ts')}/summary?force=maybe`, 'force'],
    ] as const) {
      const res = await app.get(url);
      assert.equal(res.status, 400, url);
      assert.equal(res.body.error.field, field, url);
    }
    const noCompleted = await insertSource(app.db.pool);
    await writeSyncFiles(app.db.pool, noCompleted, [{ path: 'a.ts' }], { status: 'failed' });
    assert.equal((await app.get(`/api/graph/nodes/src_${noCompleted}:a.ts`)).status, 404);
  });

  it('file: chunks joined in order with overlapping lines dropped (rule 5)', async () => {
    const db = app.db.pool;
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}\n`);
    const body = (from: number, to: number) => lines.slice(from - 1, to).join('');
    const { syncId } = await writeSyncFiles(db, src, [
      {
        path: 'notes.md',
        language: 'markdown',
        text: lines.join(''),
        // Line-greedy chunks with overlap: 1-5, 4-9 (2 lines overlap), 9-12 (1 line overlap).
        chunks: [
          { start: 1, end: 5, body: body(1, 5) },
          { start: 4, end: 9, body: body(4, 9) },
          { start: 9, end: 12, body: body(9, 12) },
        ],
      },
    ]);
    const res = await app.get<FileBody>(`${raw('notes.md')}/file?sync_id=${syncId}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.content, lines.join(''));
    assert.equal(res.body.chunk_count, 3);
    assert.equal(res.body.truncated, false);
  });

  it('file and detail of a file without chunks or edges: empty content, no neighbours', async () => {
    const { syncId } = await writeSyncFiles(app.db.pool, src, [{ path: 'blob.bin', type: 'asset', noChunks: true }]);
    const file = await app.get<FileBody>(`${raw('blob.bin')}/file?sync_id=${syncId}`);
    assert.equal(file.status, 200);
    assert.deepEqual(
      { content: file.body.content, chunk_count: file.body.chunk_count, truncated: file.body.truncated },
      { content: '', chunk_count: 0, truncated: false },
    );
    const detail = await app.get<NodeBody>(`${raw('blob.bin')}?sync_id=${syncId}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.body.node.type, 'asset');
    assert.deepEqual(detail.body.neighbors, []);
  });

  it('file: cut at 5,242,880 bytes on a character boundary with truncated=true', async () => {
    const db = app.db.pool;
    const line = 'é'.repeat(499) + '\n'; // 999 bytes
    const perChunk = 1000;
    const chunkBody = line.repeat(perChunk);
    const chunks = Array.from({ length: 6 }, (_, k) => ({
      start: k * perChunk + 1,
      end: (k + 1) * perChunk,
      body: chunkBody,
    }));
    const syncId = await createSyncRow(db, src);
    await writeSyncFiles(db, src, [{ path: 'big.txt', language: 'text', text: 'x\n', chunks }], { syncId });
    const res = await app.get<FileBody>(`${raw('big.txt')}/file?sync_id=${syncId}`);
    assert.equal(res.body.truncated, true);
    assert.equal(res.body.chunk_count, 6);
    const bytes = Buffer.byteLength(res.body.content);
    assert.ok(bytes <= 5_242_880 && bytes >= 5_242_879, `${bytes} bytes`);
    assert.ok(!res.body.content.includes('\uFFFD'), 'no character was split');
    assert.ok(chunkBody.repeat(6).startsWith(res.body.content));
    const small = await app.get<FileBody>(`${raw('lib/b.ts')}/file`);
    assert.equal(small.body.truncated, false);
  });
});
