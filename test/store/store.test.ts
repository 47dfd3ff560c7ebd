import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chunkSearchVector, searchVectorText } from '../../lib/search-vector.ts';
import type { FileAnalysis } from '../../engine/types.ts';
import {
  recordIssues,
  setChunkEmbeddings,
  setFileEmbeddings,
  writeChunks,
  writeFileRecords,
  writeGraph,
  type GraphFile,
} from '../../activities/store/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { graphCounts, insertSource, insertSync } from '../support/fixtures.ts';

function file(path: string, deps: Array<[string, number]> = [], symbols: string[] = []): FileAnalysis {
  const content = `// ${path}\n`;
  return {
    file_path: path,
    name: path.split('/').pop()!,
    type: 'source',
    language: 'typescript',
    domain: '',
    size_bytes: content.length,
    line_count: 1,
    content_hash: createHash('sha256').update(content).digest('hex'),
    imports_count: deps.length,
    exports: symbols,
    binary: false,
    symbols: symbols.map((name, i) => ({ name, kind: 'function', line: i + 1 })),
    chunks: [
      {
        chunk_index: 0,
        content: `# file: ${path}\n# in: ${path}\n\n${content}`,
        start_line: 1,
        end_line: 1,
        token_count: 5,
        language: 'typescript',
        chunk_type: 'block',
        symbols,
        search_terms: chunkSearchVector(`# file: ${path}\n# in: ${path}\n\n${content}`, symbols),
      },
    ],
    dependencies: deps.map(([target_path, weight]) => ({ target_path, weight })),
    external_imports: 0,
    embedding_text: `search_document: path: ${path}`,
    issues: [],
  };
}

const files = [
  file(
    'src/a.ts',
    [
      ['src/b.ts', 2],
      ['src/c/d.ts', 1],
    ],
    ['main', 'helper'],
  ),
  file(
    'src/b.ts',
    [
      ['src/c/d.ts', 1],
      ['src/b.ts', 1],
    ],
    ['B'],
  ),
  file('src/c/d.ts', [['src/gone.ts', 1]]),
  file('docs/a file with spaces ü.md'),
];

function graphFiles(ids: Map<string, string>, list: FileAnalysis[] = files): GraphFile[] {
  return list.map((f) => ({ ...f, fileId: ids.get(f.file_path)! }));
}

describe('row and graph writers', () => {
  let db: TestDatabase;
  let sourceId: string;
  let syncId: string;
  before(async () => {
    db = await createTestDatabase();
    sourceId = await insertSource(db.pool);
    syncId = await insertSync(db.pool, sourceId, 'running');
  });
  after(async () => {
    await db.drop();
  });

  it('writes file records, chunks and the graph; Cypher sees the directly inserted rows', async () => {
    const ctx = { syncId, sourceId, commitSha: 'abc123', commitAt: new Date('2026-01-02T03:04:05Z') };
    const { ids, issues } = await writeFileRecords(db.pool, ctx, files);
    assert.deepEqual(issues, []);
    assert.equal(ids.size, 4);
    const row = (await db.pool.query('SELECT * FROM file_records WHERE id = $1', [ids.get('src/a.ts')]))
      .rows[0] as Record<string, unknown>;
    assert.equal(row.last_commit_sha, 'abc123');
    assert.deepEqual(row.exports, ['main', 'helper']);
    assert.equal((row.last_commit_at as Date).toISOString(), '2026-01-02T03:04:05.000Z');

    const chunks = await writeChunks(
      db.pool,
      syncId,
      files.map((f) => ({ fileId: ids.get(f.file_path)!, chunks: f.chunks })),
    );
    assert.deepEqual(chunks, { written: 4, issues: [] });

    const g = await writeGraph(db.pool, { syncId, sourceId }, graphFiles(ids));
    assert.equal(g.fileVertices, 4);
    assert.equal(g.symbolVertices, 3);
    assert.equal(g.definesEdges, 3);
    assert.equal(g.dependsOnEdges, 3, 'a→b, a→d, b→d; the self-import and the missing target are not edges');
    assert.deepEqual(
      g.issues.map((i) => [i.code, i.file_path]),
      [['edge_target_missing', 'src/c/d.ts']],
    );

    const viaCypher = await db.pool.query<{ a: string; b: string; w: string }>(
      `SELECT * FROM cypher('service', $$
         MATCH (a:File)-[e:depends_on]->(b:File) WHERE e.sync_id = '${syncId}'
         RETURN a.file_path, b.file_path, e.weight ORDER BY a.file_path, b.file_path
       $$) AS (a agtype, b agtype, w agtype)`,
    );
    assert.deepEqual(
      viaCypher.rows.map((r) => [JSON.parse(r.a) as string, JSON.parse(r.b) as string, Number(r.w)]),
      [
        ['src/a.ts', 'src/b.ts', 2],
        ['src/a.ts', 'src/c/d.ts', 1],
        ['src/b.ts', 'src/c/d.ts', 1],
      ],
    );
    const defines = await db.pool.query<{ n: string; k: string; l: string }>(
      `SELECT * FROM cypher('service', $$
         MATCH (f:File {file_path: 'src/a.ts'})-[:defines]->(s:Symbol) RETURN s.name, s.kind, s.line ORDER BY s.line
       $$) AS (n agtype, k agtype, l agtype)`,
    );
    assert.deepEqual(
      defines.rows.map((r) => [JSON.parse(r.n) as string, JSON.parse(r.k) as string, Number(r.l)]),
      [
        ['main', 'function', 1],
        ['helper', 'function', 2],
      ],
    );
  });

  it('is idempotent: writing the same sync again leaves the same rows and ids', async () => {
    const ctx = { syncId, sourceId };
    const first = await writeFileRecords(db.pool, ctx, files);
    const again = await writeFileRecords(db.pool, ctx, files);
    assert.deepEqual([...again.ids.entries()].sort(), [...first.ids.entries()].sort());
    await writeChunks(
      db.pool,
      syncId,
      files.map((f) => ({ fileId: first.ids.get(f.file_path)!, chunks: f.chunks })),
    );
    await writeGraph(db.pool, { syncId, sourceId }, graphFiles(first.ids));
    await writeGraph(db.pool, { syncId, sourceId }, graphFiles(first.ids));
    assert.deepEqual(await graphCounts(db.pool, syncId), { File: 4, Symbol: 3, depends_on: 3, defines: 3 });
    const n = await db.pool.query<{ f: string; c: string }>(
      'SELECT (SELECT count(*) FROM file_records WHERE sync_id = $1) AS f, (SELECT count(*) FROM content_chunks WHERE sync_id = $1) AS c',
      [syncId],
    );
    assert.deepEqual(n.rows[0], { f: '4', c: '4' });
  });

  it('falls back to single rows: a bad row becomes an issue and the rest of its batch is written', async () => {
    const sync = await insertSync(db.pool, sourceId, 'completed');
    const good = Array.from({ length: 700 }, (_, i) => file(`gen/f${i}.ts`));
    const bad = { ...file('gen/bad.ts'), content_hash: 'not-a-hash' };
    const { ids, issues } = await writeFileRecords(db.pool, { syncId: sync, sourceId }, [
      ...good.slice(0, 300),
      bad,
      ...good.slice(300),
    ]);
    assert.equal(ids.size, 700);
    assert.equal(issues.length, 1);
    assert.equal(issues[0]!.code, 'file_row_rejected');
    assert.equal(issues[0]!.file_path, 'gen/bad.ts');

    const withNul = { ...good[0]!.chunks[0]!, chunk_index: 1, content: 'nul \u0000 byte' };
    const res = await writeChunks(db.pool, sync, [
      { fileId: ids.get('gen/f0.ts')!, filePath: 'gen/f0.ts', chunks: [good[0]!.chunks[0]!, withNul] },
    ]);
    assert.equal(res.written, 1);
    assert.deepEqual(
      res.issues.map((i) => [i.code, i.file_path, i.context?.chunk_index]),
      [['chunk_row_rejected', 'gen/f0.ts', 1]],
    );
  });

  it('stores the binary search terms as PostgreSQL reads their text form (weights, positions, Unicode, caps)', async () => {
    const sync = await insertSync(db.pool, sourceId, 'completed');
    const long = Array.from({ length: 9000 }, (_, i) => `w${i % 50} 0x${i.toString(16)}`).join(' ');
    const contents = [
      '# file: src/ü/größe.ts\n# in: Größe\n\nconst straße = größeBerechnen(日本語, naïve_value);',
      `# file: gen/long.go\n# in: gen\n\n${long}`,
      'no breadcrumb: parseRequestBody(parse_request_body)',
      '',
    ];
    const f = file('terms/t.ts');
    const { ids } = await writeFileRecords(db.pool, { syncId: sync, sourceId }, [f]);
    const chunks = contents.map((content, i) => ({
      ...f.chunks[0]!,
      chunk_index: i,
      content,
      search_terms: chunkSearchVector(content, i === 0 ? ['größeBerechnen'] : []),
    }));
    const res = await writeChunks(db.pool, sync, [{ fileId: ids.get('terms/t.ts')!, chunks }]);
    assert.deepEqual(res, { written: 4, issues: [] });
    const rows = await db.pool.query<{ stored: string }>(
      'SELECT search_terms::text AS stored FROM content_chunks WHERE sync_id = $1 ORDER BY chunk_index',
      [sync],
    );
    assert.equal(rows.rows.length, 4);
    const parsed = await db.pool.query<{ t: string }>('SELECT unnest($1::tsvector[])::text AS t', [
      chunks.map((c) => searchVectorText(c.search_terms)),
    ]);
    assert.deepEqual(
      rows.rows.map((r) => r.stored),
      parsed.rows.map((r) => r.t),
    );
    assert.match(rows.rows[0]!.stored, /'größeberechnen':\d+,\d+A/);
    assert.match(rows.rows[0]!.stored, /'日本語':\d+/);
    assert.match(rows.rows[1]!.stored, /'w0':\d+(,\d+){7} /);
    assert.equal(rows.rows[3]!.stored, '');
  });

  it('stores chunk content byte for byte (sent as a binary text[]), compressed with lz4 when large', async () => {
    const sync = await insertSync(db.pool, sourceId, 'completed');
    const big = Array.from({ length: 400 }, (_, i) => `\tfmt.Printf("%d\\n", x${i}) // "quoted" {braces} ,;\r\n`);
    const contents = [
      'quotes " \' backslashes \\ \\\\ \\n tabs \t\t and CRLF\r\n{"json": [1, 2]} NULL \\N',
      'Unicode: größe 日本語 naïve — emoji 🦫 𝔘 (astral) and U+2028 \u2028 U+FEFF \ufeff',
      big.join(''),
      '',
    ];
    const f = file('content/c.go');
    const { ids } = await writeFileRecords(db.pool, { syncId: sync, sourceId }, [f]);
    const chunks = contents.map((content, i) => ({ ...f.chunks[0]!, chunk_index: i, content }));
    const res = await writeChunks(db.pool, sync, [{ fileId: ids.get('content/c.go')!, chunks }]);
    assert.deepEqual(res, { written: 4, issues: [] });
    const rows = await db.pool.query<{ content: string; method: string | null; symbols: string[] }>(
      `SELECT content, pg_column_compression(content) AS method, symbols
         FROM content_chunks WHERE sync_id = $1 ORDER BY chunk_index`,
      [sync],
    );
    assert.deepEqual(
      rows.rows.map((r) => r.content),
      contents,
    );
    assert.deepEqual(rows.rows[0]!.symbols, f.chunks[0]!.symbols, 'the small columns still come from the JSON rows');
    assert.equal(rows.rows[2]!.method, 'lz4', 'a large chunk is compressed with lz4 (V22)');
    assert.equal(rows.rows[0]!.method, null, 'a small one is stored as it is');
  });

  it('backfills embeddings into files and chunks', async () => {
    const { ids } = await writeFileRecords(db.pool, { syncId, sourceId }, files);
    const fileId = ids.get('src/a.ts')!;
    const v = Array.from({ length: 896 }, (_, i) => (i === 0 ? 1 : 0));
    assert.equal(await setFileEmbeddings(db.pool, [{ id: fileId, embedding: v }]), 1);
    // Chunk vectors are written to the shared chunk rows (schema V12), by their own id.
    const chunk = (
      await db.pool.query<{ id: string }>(
        'SELECT k.id FROM file_content_chunks k JOIN sync_files s ON s.content_id = k.content_id WHERE s.id = $1',
        [fileId],
      )
    ).rows[0]!;
    assert.equal(await setChunkEmbeddings(db.pool, [{ id: chunk.id, embedding: v }]), 1);
    const d = await db.pool.query<{ d: number }>(
      `SELECT embedding <=> $2::vector AS d FROM file_records WHERE id = $1`,
      [fileId, `[${v.join(',')}]`],
    );
    assert.equal(d.rows[0]!.d, 0);
  });

  it('records issues up to the cap of 1000', async () => {
    const sync = await insertSync(db.pool, sourceId, 'completed');
    const many = Array.from({ length: 600 }, (_, i) => ({
      level: 'warning' as const,
      phase: 'parsing',
      code: 'x',
      message: `m${i}`,
      file_path: `f${i}`,
    }));
    assert.equal(await recordIssues(db.pool, sync, many), 600);
    assert.equal(await recordIssues(db.pool, sync, many), 400);
    const ctx = await db.pool.query<{ context: unknown }>(
      'SELECT context FROM sync_issues WHERE sync_id = $1 ORDER BY id LIMIT 1',
      [sync],
    );
    assert.deepEqual(ctx.rows[0]!.context, { file_path: 'f0' });
  });
});
