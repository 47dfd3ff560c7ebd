/**
 * Benchmark of the row and graph writers on a synthetic sync the size of the Go standard library:
 * 10,000 files, 40,000 depends_on edges, 30,000 symbols (+ 30,000 defines edges), 30,000 chunks.
 * Run: node --import tsx bench/store.ts   (needs DATABASE_URL; uses a scratch database it drops afterwards)
 */
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool } from '../lib/db.ts';
import { chunkSearchVector } from '../lib/search-vector.ts';
import { migrate } from '../schema/migrate.ts';
import type { FileAnalysis } from '../engine/types.ts';
import { writeChunks, writeFileRecords, writeGraph } from '../activities/store/index.ts';

const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const EDGES_PER_FILE = 4;
const SYMBOLS_PER_FILE = 3;
const CHUNKS_PER_FILE = 3;

const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:55432/ckg');
const dbName = `ckg_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: new URL('/postgres', base).toString() });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(`/${dbName}`, base).toString();
await migrate(url);
const pool = createPool(url, { max: 4 });

function fakeFile(i: number): FileAnalysis {
  const path = `pkg${i % 300}/file${i}.go`;
  const body = `package pkg${i % 300}\n\nfunc F${i}() {}\n`.repeat(20);
  return {
    file_path: path,
    name: `file${i}.go`,
    type: 'source',
    language: 'go',
    domain: '',
    size_bytes: body.length,
    line_count: 60,
    content_hash: createHash('sha256').update(body).digest('hex'),
    imports_count: EDGES_PER_FILE,
    exports: [`F${i}`],
    binary: false,
    symbols: Array.from({ length: SYMBOLS_PER_FILE }, (_, k) => ({
      name: `F${i}_${k}`,
      kind: 'function' as const,
      line: k * 10 + 1,
    })),
    chunks: Array.from({ length: CHUNKS_PER_FILE }, (_, k) => ({
      chunk_index: k,
      content: `# file: ${path}\n# in: pkg\n\n${body.slice(0, 600)}`,
      start_line: k * 20 + 1,
      end_line: k * 20 + 20,
      token_count: 150,
      language: 'go',
      chunk_type: 'function' as const,
      symbols: [`F${i}_${k}`],
      search_terms: chunkSearchVector(`# file: ${path}\n# in: pkg\n\n${body.slice(0, 600)}`, [`F${i}_${k}`]),
    })),
    dependencies: Array.from({ length: EDGES_PER_FILE }, (_, k) => ({
      target_path: `pkg${((i * 7 + k * 13 + 1) % FILES) % 300}/file${(i * 7 + k * 13 + 1) % FILES}.go`,
      weight: 1 + (k % 3),
    })),
    external_imports: 2,
    embedding_text: '',
    issues: [],
  };
}

const files = Array.from({ length: FILES }, (_, i) => fakeFile(i));
const source = (
  await pool.query<{ id: string }>(`INSERT INTO sources (owner, name) VALUES ('bench', 'go') RETURNING id`)
).rows[0]!.id;
const sync = (
  await pool.query<{ id: string }>(`INSERT INTO sync_runs (source_id, status) VALUES ($1, 'running') RETURNING id`, [
    source,
  ])
).rows[0]!.id;

function time<T>(label: string, fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  return fn().then((value) => {
    const ms = performance.now() - t0;
    return { ms, value };
  });
}

const f = await time('files', () => writeFileRecords(pool, { syncId: sync, sourceId: source }, files));
const ids = f.value.ids;
const c = await time('chunks', () =>
  writeChunks(
    pool,
    sync,
    files.map((x) => ({ fileId: ids.get(x.file_path)!, chunks: x.chunks })),
  ),
);
const g = await time('graph', () =>
  writeGraph(
    pool,
    { syncId: sync, sourceId: source },
    files.map((x) => ({ ...x, fileId: ids.get(x.file_path)! })),
  ),
);
const g2 = await time('graph again (idempotent rewrite)', () =>
  writeGraph(
    pool,
    { syncId: sync, sourceId: source },
    files.map((x) => ({ ...x, fileId: ids.get(x.file_path)! })),
  ),
);

const r = g.value;
const edges = r.dependsOnEdges + r.definesEdges;
const vertices = r.fileVertices + r.symbolVertices;
console.log(
  `store benchmark: ${FILES} files, ${r.dependsOnEdges} depends_on + ${r.definesEdges} defines edges, ${r.symbolVertices} symbols`,
);
console.log(`  file records   ${f.ms.toFixed(0).padStart(6)} ms  ${((FILES / f.ms) * 1000).toFixed(0)} rows/s`);
console.log(
  `  chunks         ${c.ms.toFixed(0).padStart(6)} ms  ${((c.value.written / c.ms) * 1000).toFixed(0)} rows/s`,
);
console.log(
  `  graph          ${g.ms.toFixed(0).padStart(6)} ms  ${vertices} vertices + ${edges} edges = ${(((vertices + edges) / g.ms) * 1000).toFixed(0)} rows/s`,
);
console.log(`  graph rewrite  ${g2.ms.toFixed(0).padStart(6)} ms  (delete the sync's graph, then write it again)`);

// Edge-only rate: time just the edge inserts by rewriting a graph of files with no symbols.
const bare = files.map((x) => ({ ...x, symbols: [], fileId: ids.get(x.file_path)! }));
await writeGraph(pool, { syncId: sync, sourceId: source }, bare);
const e = await time('edges', async () => {
  const c2 = await pool.connect();
  try {
    const t0 = performance.now();
    await c2.query('SELECT delete_sync_graph($1)', [sync]);
    const del = performance.now() - t0;
    const res = await writeGraph(c2, { syncId: sync, sourceId: source }, bare);
    return { del, res };
  } finally {
    c2.release();
  }
});
console.log(
  `  depends_on only ${e.ms.toFixed(0).padStart(5)} ms for ${FILES} vertices + ${e.value.res.dependsOnEdges} edges: ${(((FILES + e.value.res.dependsOnEdges) / e.ms) * 1000).toFixed(0)} rows/s`,
);

await pool.end();
await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
await admin.end();
