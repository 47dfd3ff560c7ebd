/**
 * Where a chunk search spends its time: runs searchChunks for each query given and prints EXPLAIN (ANALYZE, BUFFERS)
 * of every statement it sends whose text matches --match (default: the lexical ranking's), with the real parameters.
 *
 *   DATABASE_URL=… node --import tsx bench/search/explain.ts [--corpus go-std] [--mode lexical] [--match TEXT] 'query' …
 */
import { createPool } from '../../lib/db.ts';
import { withReadTx, type ReadTx, type Statement } from '../../graph-api/db/read.ts';
import { searchChunks } from '../../graph-api/search/chunks.ts';
import { parseChunkSearchParams, type ChunkMode } from '../../graph-api/search/params.ts';

const args = process.argv.slice(2);
const flags = new Map<string, string>();
const queries: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i]!.startsWith('--')) flags.set(args[i]!, args[++i]!);
  else queries.push(args[i]!);
}
const corpus = flags.get('--corpus') ?? 'go-std';
const mode = (flags.get('--mode') ?? 'lexical') as ChunkMode;
const match = flags.get('--match') ?? 'ts_rank';
const dbUrl = process.env.DATABASE_URL;
if (!dbUrl) throw new Error('DATABASE_URL is not set');
const pool = createPool(dbUrl, { max: 1 });
const src = await pool.query<{ id: string }>(`SELECT id FROM sources WHERE owner = 'search-eval' AND name = $1`, [
  corpus,
]);
const sourceId = src.rows[0]?.id;
if (!sourceId) throw new Error(`no source search-eval/${corpus}`);

for (const q of queries) {
  const p = parseChunkSearchParams({ q, mode, source_id: sourceId, limit: '10' });
  await withReadTx(pool, 60_000, async (tx) => {
    const explaining: ReadTx = {
      async query(sql: Statement, params?: unknown[]) {
        const text = typeof sql === 'string' ? sql : sql.text;
        if (text.includes(match)) {
          const plan = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
          console.log(`\n=== ${q}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
        }
        return tx.query(sql, params);
      },
    };
    return searchChunks(explaining, p, null);
  });
}
await pool.end();
