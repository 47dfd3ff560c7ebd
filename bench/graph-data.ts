/**
 * Benchmark data for the graph component, written with the sync pipeline's own writers (activities/store): one
 * source, `syncs` completed syncs of `files` files each with `edgesPerSync` depends_on edges, two symbols per file,
 * three chunks per file, 896-d file embeddings; about 5% of the files change content between consecutive syncs.
 * One extra file of ~1 MB (line-greedy chunks with overlap) is added to the last sync for the file endpoint.
 */
import { createHash } from 'node:crypto';
import type { Pool } from '../lib/db.ts';
import { chunkSearchVector } from '../lib/search-vector.ts';
import type { ChunkInfo, Dependency, FileAnalysis, SymbolInfo } from '../engine/types.ts';
import { setFileEmbeddings, writeChunks, writeFileRecords, writeGraph } from '../activities/store/index.ts';

export interface BenchShape {
  files: number;
  edgesPerSync: number;
  syncs: number;
  dim: number;
}

export interface BenchData {
  sourceId: string;
  syncIds: string[];
  /** A file path present in every sync. */
  samplePaths: string[];
  bigFilePath: string;
  bigFileBytes: number;
}

const TYPES = ['source', 'source', 'source', 'test', 'config', 'doc'] as const;

/** Deterministic pseudo-random numbers (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function unitVector(rand: () => number, dim: number): number[] {
  const v = Array.from({ length: dim }, () => rand() - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

function pathOf(i: number): string {
  return `pkg${String(i % 97).padStart(2, '0')}/sub${i % 7}/file_${i}.go`;
}

function chunk(path: string, index: number, start: number, body: string[]): ChunkInfo {
  const content = `# file: ${path}\n# in: \n\n${body.join('')}`;
  return {
    chunk_index: index,
    content,
    start_line: start,
    end_line: start + body.length - 1,
    token_count: Math.ceil(content.split(/\s+/).length * 1.3),
    language: 'go',
    chunk_type: 'function',
    symbols: [],
    search_terms: chunkSearchVector(content, []),
  };
}

export async function generate(pool: Pool, shape: BenchShape, log = console.log): Promise<BenchData> {
  const rand = rng(42);
  const src = await pool.query<{ id: string }>(
    `INSERT INTO sources (owner, name, url) VALUES ('bench', $1, 'https://example.invalid/bench.git') RETURNING id`,
    [`graph-${Date.now()}`],
  );
  const sourceId = src.rows[0]!.id;
  const syncIds: string[] = [];
  const version = new Array<number>(shape.files).fill(0);
  const edges = new Array<[number, number, number] | undefined>(shape.edgesPerSync);
  const randomEdge = (): [number, number, number] => {
    const from = Math.floor(rand() * shape.files);
    let to = Math.floor(rand() * shape.files);
    if (to === from) to = (to + 1) % shape.files;
    return [from, to, 1 + Math.floor(rand() * 3)];
  };
  for (let s = 0; s < shape.syncs; s++) {
    const t0 = Date.now();
    const sync = await pool.query<{ id: string }>(
      `INSERT INTO sync_runs (source_id, status, created_at, completed_at)
       VALUES ($1, 'completed', now() - make_interval(mins => $2), now()) RETURNING id`,
      [sourceId, shape.syncs - s],
    );
    const syncId = sync.rows[0]!.id;
    syncIds.push(syncId);
    if (s > 0) for (let i = 0; i < shape.files; i++) if (rand() < 0.05) version[i]!++;
    // Edges change like files do: about 5% are replaced between consecutive syncs.
    for (let e = 0; e < shape.edgesPerSync; e++) {
      if (edges[e] === undefined || rand() < 0.05) edges[e] = randomEdge();
    }
    const deps = new Map<number, Dependency[]>();
    for (const [from, to, weight] of edges as Array<[number, number, number]>) {
      const list = deps.get(from) ?? [];
      list.push({ target_path: pathOf(to), weight });
      deps.set(from, list);
    }
    const analyses: FileAnalysis[] = [];
    for (let i = 0; i < shape.files; i++) {
      const path = pathOf(i);
      const text = `package p${i}\n// version ${version[i]}\nfunc F${i}() int { return ${i} }\n`;
      const symbols: SymbolInfo[] = [
        { name: `F${i}`, kind: 'function', line: 3 },
        { name: `T${i}`, kind: 'class', line: 4 },
      ];
      analyses.push({
        file_path: path,
        name: path.split('/').pop()!,
        type: TYPES[i % TYPES.length]!,
        language: 'go',
        domain: `pkg${i % 97}`,
        size_bytes: text.length,
        line_count: 3,
        content_hash: createHash('sha256').update(text).digest('hex'),
        imports_count: deps.get(i)?.length ?? 0,
        exports: [`F${i}`],
        binary: false,
        symbols,
        chunks: [0, 1, 2].map((k) =>
          chunk(
            path,
            k,
            k * 10 + 1,
            Array.from({ length: 10 }, (_, l) => `line ${k * 10 + l + 1} of ${path}\n`),
          ),
        ),
        dependencies: deps.get(i) ?? [],
        external_imports: 0,
        embedding_text: '',
        issues: [],
      });
    }
    const { ids } = await writeFileRecords(pool, { syncId, sourceId }, analyses);
    await writeChunks(
      pool,
      syncId,
      analyses.map((a) => ({ fileId: ids.get(a.file_path)!, chunks: a.chunks })),
    );
    await writeGraph(
      pool,
      { syncId, sourceId },
      analyses.map((a) => ({
        fileId: ids.get(a.file_path)!,
        file_path: a.file_path,
        name: a.name,
        type: a.type,
        domain: a.domain,
        symbols: a.symbols,
        dependencies: a.dependencies,
      })),
    );
    const pairs = analyses.map((a) => ({ id: ids.get(a.file_path)!, embedding: unitVector(rand, shape.dim) }));
    for (let k = 0; k < pairs.length; k += 1000) await setFileEmbeddings(pool, pairs.slice(k, k + 1000));
    log(`sync ${s + 1}/${shape.syncs}: ${shape.files} files, ${shape.edgesPerSync} edges in ${Date.now() - t0} ms`);
  }
  // The 1 MB file: line-greedy chunks of 40 lines that overlap the previous chunk by 4 lines.
  const bigFilePath = 'big/generated_table.txt';
  const lines = Array.from({ length: 16_000 }, (_, i) => `row ${String(i + 1).padStart(6, '0')} ${'x'.repeat(52)}\n`);
  const bigFileBytes = Buffer.byteLength(lines.join(''));
  const lastSync = syncIds.at(-1)!;
  const chunks: ChunkInfo[] = [];
  for (let start = 1, k = 0; start <= lines.length; k++) {
    const from = k === 0 ? start : start - 4;
    const end = Math.min(lines.length, from + 39);
    chunks.push({ ...chunk(bigFilePath, k, from, lines.slice(from - 1, end)), language: 'text', chunk_type: 'line' });
    start = end + 1;
  }
  const { ids } = await writeFileRecords(pool, { syncId: lastSync, sourceId }, [
    {
      file_path: bigFilePath,
      name: 'generated_table.txt',
      type: 'data',
      domain: '',
      language: 'text',
      size_bytes: bigFileBytes,
      line_count: lines.length,
      imports_count: 0,
      exports: [],
      content_hash: createHash('sha256').update(lines.join('')).digest('hex'),
    },
  ]);
  await writeChunks(pool, lastSync, [{ fileId: ids.get(bigFilePath)!, chunks }]);
  await pool.query('ANALYZE');
  return {
    sourceId,
    syncIds,
    samplePaths: [0, 1, 2, 3, 4, 5, 6, 7].map((i) => pathOf((i * 1237) % shape.files)),
    bigFilePath,
    bigFileBytes,
  };
}
