/**
 * Graph data for the graph component's tests, written with the sync pipeline's own writers (activities/store):
 * file records, chunks, File/Symbol vertices, depends_on/defines edges and file embeddings of one sync.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from '../../lib/db.ts';
import { chunkSearchVector } from '../../lib/search-vector.ts';
import type { ChunkInfo, ChunkType, FileType, SymbolInfo } from '../../engine/types.ts';
import {
  loadGraphLabels,
  setFileEmbeddings,
  symbolVertices,
  writeChunks,
  writeFileRecords,
  writeGraph,
  writeSymbolEdges,
  writeUnresolved,
} from '../../activities/store/index.ts';
import type { SymbolEdge, UnresolvedUse } from '../../engine/symbols/index.ts';
import { writeSearchStats } from '../../activities/store/search-stats.ts';

export interface FileSpec {
  path: string;
  /** File text; one chunk covering it unless `chunks` is given (or `noChunks`). Default: `// <path>\n`. */
  text?: string;
  type?: FileType;
  language?: string;
  domain?: string;
  deps?: Array<[target: string, weight: number]>;
  symbols?: SymbolInfo[];
  chunks?: Array<{ start: number; end: number; body: string; chunk_type?: ChunkType; symbols?: string[] }>;
  noChunks?: boolean;
  embedding?: number[];
}

export function breadcrumb(path: string): string {
  return `# file: ${path}\n# in: \n\n`;
}

function chunkInfos(f: FileSpec, text: string): ChunkInfo[] {
  if (f.noChunks) return [];
  const specs: NonNullable<FileSpec['chunks']> = f.chunks ?? [
    { start: 1, end: Math.max(1, text.split('\n').length - 1), body: text },
  ];
  return specs.map((c, i) => ({
    chunk_index: i,
    content: breadcrumb(f.path) + c.body,
    search_terms: chunkSearchVector(breadcrumb(f.path) + c.body, c.symbols ?? []),
    start_line: c.start,
    end_line: c.end,
    token_count: 1,
    language: f.language ?? 'typescript',
    chunk_type: c.chunk_type ?? 'block',
    symbols: c.symbols ?? [],
  }));
}

export async function createSyncRow(
  db: Queryable,
  sourceId: string,
  opts: { status?: string; minutesAgo?: number } = {},
): Promise<string> {
  const r = await db.query<{ id: string }>(
    `INSERT INTO sync_runs (source_id, status, created_at, completed_at)
     VALUES ($1, $2, now() - make_interval(mins => $3), CASE WHEN $2 = 'completed' THEN now() END) RETURNING id`,
    [sourceId, opts.status ?? 'completed', opts.minutesAgo ?? 0],
  );
  return r.rows[0]!.id;
}

/** Writes the files of one sync; returns the sync id and file ids by path. */
export async function writeSyncFiles(
  db: Queryable,
  sourceId: string,
  files: FileSpec[],
  opts: { status?: string; minutesAgo?: number; syncId?: string } = {},
): Promise<{ syncId: string; ids: Map<string, string> }> {
  const syncId = opts.syncId ?? (await createSyncRow(db, sourceId, opts));
  const texts = files.map((f) => f.text ?? `// ${f.path}\n`);
  const { ids, issues } = await writeFileRecords(
    db,
    { syncId, sourceId },
    files.map((f, i) => ({
      file_path: f.path,
      name: f.path.split('/').pop()!,
      type: f.type ?? 'source',
      domain: f.domain ?? '',
      language: f.language ?? 'typescript',
      size_bytes: Buffer.byteLength(texts[i]!),
      line_count: texts[i]!.split('\n').length - 1,
      imports_count: f.deps?.length ?? 0,
      exports: [],
      content_hash: createHash('sha256').update(texts[i]!).digest('hex'),
      symbols: f.symbols ?? [],
    })),
  );
  if (issues.length > 0) throw new Error(`file records rejected: ${JSON.stringify(issues)}`);
  await writeChunks(
    db,
    syncId,
    files.map((f, i) => ({ fileId: ids.get(f.path)!, chunks: chunkInfos(f, texts[i]!) })),
  );
  const graph = await writeGraph(
    db,
    { syncId, sourceId },
    files.map((f) => ({
      fileId: ids.get(f.path)!,
      file_path: f.path,
      name: f.path.split('/').pop()!,
      type: f.type ?? 'source',
      domain: f.domain ?? '',
      symbols: f.symbols ?? [],
      dependencies: (f.deps ?? []).map(([target_path, weight]) => ({ target_path, weight })),
    })),
  );
  if (graph.issues.length > 0) throw new Error(`graph rows rejected: ${JSON.stringify(graph.issues)}`);
  // A completed sync has its search statistics, as finalizeSync writes them (lexical search ranks with them).
  if ((opts.status ?? 'completed') === 'completed') await writeSearchStats(db, syncId, undefined);
  const vectors = files.filter((f) => f.embedding).map((f) => ({ id: ids.get(f.path)!, embedding: f.embedding! }));
  if (vectors.length > 0) await setFileEmbeddings(db, vectors);
  return { syncId, ids };
}

/**
 * The symbol graph of a sync written by the pipeline's own writers (activities/store/symbols.ts): edges between the
 * sync's Symbol vertices (by `<path>#<key>`) and unresolved uses. Every edge must find both ends.
 */
export async function writeSymbolGraph(
  db: Queryable,
  ctx: { syncId: string; sourceId: string },
  edges: SymbolEdge[],
  unresolved: UnresolvedUse[] = [],
): Promise<void> {
  const files = await db.query<{ id: string; path: string }>(
    `SELECT id::text, properties ->> '"file_path"'::ag_catalog.agtype AS path FROM service."File"
      WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = $1::text::ag_catalog.agtype`,
    [JSON.stringify(ctx.syncId)],
  );
  const vertexOf = await symbolVertices(db, new Map(files.rows.map((r) => [r.id, r.path])));
  const w = await writeSymbolEdges(db, ctx, edges, vertexOf, await loadGraphLabels(db));
  if (w.dangling > 0 || w.issues.length > 0) throw new Error(`symbol edges not written: ${JSON.stringify(w)}`);
  await writeUnresolved(db, ctx.syncId, unresolved);
}
