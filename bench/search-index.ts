/**
 * What the chunk full-text index costs the database: prints figures, asserts nothing.
 * `DATABASE_URL=… node --import tsx bench/search-index.ts [--chunks FILE] [--limit N] [--variants a,b,…]`
 *
 * Inserts the Go standard library's chunks (collected by bench/search-terms.ts into FILE) into a scratch copy of
 * file_content_chunks (same columns, storage, unique key and GIN index; dropped at the end), 500 rows a statement as
 * the sync's writer does, once per variant, and reads the backend's CPU time from /proc (the database must run on
 * this machine). Variants:
 *   none      no search terms (the row and its other indexes only)
 *   v7        no search terms, and V7's GIN over to_tsvector('simple', content) (the index before issue 13)
 *   text      the terms as a tsvector literal inside the JSON payload, cast by PostgreSQL (tsvector_in)
 *   text-nogin  the same without the GIN index
 *   binary    the terms as a binary tsvector[] parameter (tsvectorrecv), the rest in the JSON payload
 *   …-nonum   any of these without the lexemes that start with a digit
 *   …-common  without the lexemes found in 10 % or more of the chunks (the 133 most common on the Go tree)
 *   …-nogin   without the GIN index
 *   …-wide    with toast_tuple_target 8160 (rows up to a page stay whole, uncompressed)
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { chunkSearchVector, searchVectorArray, searchVectorText } from '../lib/search-vector.ts';
import { DEFAULT_CHUNKS_FILE, loadChunks } from './support/go-chunks.ts';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: DEFAULT_CHUNKS_FILE },
    limit: { type: 'string', default: 'Infinity' },
    variants: { type: 'string', default: 'none,text,binary,none,text,binary' },
  },
});

const chunks = await loadChunks(values.chunks, Number(values.limit));

type Entry = [string, number[]];
/** A tsvector literal of lib/search-terms.ts (quoted lexemes of letters and digits) as entries: lexeme, positions. */
function entries(literal: string): Entry[] {
  if (literal === '') return [];
  return literal.split(' ').map((e) => {
    const [, lexeme, pos] = /^'(.*)':(.*)$/.exec(e)!;
    const w = { A: 3, B: 2, C: 1 } as Record<string, number>;
    return [lexeme!, pos!.split(',').map((p) => (w[p.at(-1)!] ?? 0) * 16384 + parseInt(p, 10))];
  });
}
const literalOf = (v: Entry[]) =>
  v.map(([l, ps]) => `'${l}':` + ps.map((p) => `${p & 16383}${['', 'C', 'B', 'A'][p >> 14]}`).join(',')).join(' ');
/** tsvectorsend's format, one element per chunk, in the binary array format (element type tsvector, OID 3614). */
function tsvectorArray(vs: Entry[][]): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(20);
  head.writeInt32BE(1, 0);
  head.writeInt32BE(0, 4);
  head.writeUInt32BE(3614, 8);
  head.writeInt32BE(vs.length, 12);
  head.writeInt32BE(1, 16);
  parts.push(head);
  for (const v of vs) {
    const body: Buffer[] = [];
    const n = Buffer.alloc(4);
    n.writeInt32BE(v.length);
    body.push(n);
    for (const [l, ps] of v) {
      body.push(Buffer.from(l + '\0', 'utf8'));
      const p = Buffer.alloc(2 + 2 * ps.length);
      p.writeUInt16BE(ps.length, 0);
      ps.forEach((x, i) => p.writeUInt16BE(x, 2 + 2 * i));
      body.push(p);
    }
    const b = Buffer.concat(body);
    const len = Buffer.alloc(4);
    len.writeInt32BE(b.length);
    parts.push(len, b);
  }
  return Buffer.concat(parts);
}
const binaries = chunks.map((c) => chunkSearchVector(c.content, c.symbols));
const vectors: Entry[][] = binaries.map((b) => entries(searchVectorText(b)));

const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
const cpu = () => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const x = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(x[11]) + Number(x[12])) / 100;
};

const TABLE = 'bench_search_index_chunks';
async function createTable(gin: boolean, v7: boolean) {
  await client.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await client.query(`CREATE TABLE ${TABLE} (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(), content_id uuid NOT NULL, chunk_index integer NOT NULL,
    content text NOT NULL, start_line integer NOT NULL, end_line integer NOT NULL, token_count integer NOT NULL,
    language text NOT NULL, chunk_type text NOT NULL, symbols text[] NOT NULL, embedding vector(896),
    created_at timestamptz NOT NULL DEFAULT now(), search_terms tsvector,
    UNIQUE (content_id, chunk_index))`);
  await client.query(`ALTER TABLE ${TABLE} ALTER COLUMN search_terms SET STORAGE MAIN`);
  if (gin) await client.query(`CREATE INDEX ${TABLE}_terms ON ${TABLE} USING gin (search_terms)`);
  if (v7) await client.query(`CREATE INDEX ${TABLE}_fts ON ${TABLE} USING gin (to_tsvector('simple', content))`);
}

/** The lexemes found in at least 10 % of the chunks. */
const common = (() => {
  const df = new Map<string, number>();
  for (const v of vectors) for (const [l] of v) df.set(l, (df.get(l) ?? 0) + 1);
  return new Set([...df].filter(([, n]) => n >= chunks.length / 10).map(([l]) => l));
})();

const COLUMNS = `r.content_id, 0, r.content, 1, 1, 10, 'go', 'function', r.symbols`;
const RECORD = `r(content_id uuid, content text, symbols text[], search_terms text)`;

async function run(variant: string): Promise<{ cpu: number; bytes: number }> {
  await createTable(!variant.includes('-nogin') && variant !== 'v7', variant === 'v7');
  if (variant.includes('-wide')) await client.query(`ALTER TABLE ${TABLE} SET (toast_tuple_target = 8160)`);
  const c0 = cpu();
  let bytes = 0;
  for (let i = 0; i < chunks.length; i += 500) {
    const batch = chunks.slice(i, i + 500);
    const vs = vectors
      .slice(i, i + 500)
      .map((v) => (variant.endsWith('-nonum') ? v.filter(([l]) => !/^[0-9]/.test(l)) : v))
      .map((v) => (variant.endsWith('-common') ? v.filter(([l]) => !common.has(l)) : v));
    const rows = batch.map((c, k) => ({
      content_id: randomUUID(),
      content: c.content,
      symbols: c.symbols,
      ...(variant.startsWith('text') ? { search_terms: literalOf(vs[k]!) } : {}),
    }));
    const json = JSON.stringify(rows);
    bytes += json.length;
    if (variant.startsWith('binary')) {
      const filtered = variant.includes('-nonum') || variant.includes('-common');
      const bin = !filtered ? searchVectorArray(binaries.slice(i, i + 500)) : tsvectorArray(vs);
      bytes += bin.length;
      await client.query(
        `INSERT INTO ${TABLE} (content_id, chunk_index, content, start_line, end_line, token_count, language,
                               chunk_type, symbols, search_terms)
         SELECT ${COLUMNS}, r.search_terms
           FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (content_id uuid, content text, symbols text[]),
                           unnest($2::tsvector[])) AS r(content_id, content, symbols, search_terms)`,
        [json, bin],
      );
    } else {
      await client.query(
        `INSERT INTO ${TABLE} (content_id, chunk_index, content, start_line, end_line, token_count, language,
                               chunk_type, symbols, search_terms)
         SELECT ${COLUMNS}, r.search_terms::tsvector FROM jsonb_to_recordset($1::jsonb) AS ${RECORD}`,
        [json],
      );
    }
  }
  return { cpu: cpu() - c0, bytes };
}

console.log(`${chunks.length} chunks`);
for (const v of values.variants.split(',')) {
  const r = await run(v);
  const n = (await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${TABLE} WHERE search_terms IS NOT NULL`))
    .rows[0]!.n;
  console.log(
    `${v.padEnd(14)} backend ${r.cpu.toFixed(2)} CPU-s (${((r.cpu * 1e6) / chunks.length).toFixed(0)} µs per chunk), ` +
      `${(r.bytes / 1e6).toFixed(1)} MB sent, ${n} rows with terms`,
  );
}
await client.query(`DROP TABLE IF EXISTS ${TABLE}`);
await client.end();
