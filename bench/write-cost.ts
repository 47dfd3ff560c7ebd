/**
 * What a full sync's row and graph writes cost the database and the worker's main thread, writer by writer, on the
 * Go standard library's real analyses: prints figures, asserts nothing.
 * `DATABASE_URL=… node --import tsx bench/write-cost.ts [--limit FILES] [--runs N] [--drop index,index,…]`
 *
 * The engine's analyses of $(go env GOROOT)/src are collected once into a JSON-lines file in the OS temp folder
 * (search terms as base64). Each run writes them into a fresh scratch database (migrated, dropped at the end) the way
 * writeBatch does: 500 files a transaction, file records, chunks, then File and Symbol vertices and defines edges;
 * depends_on edges once at the end, then the GIN indexes' pending lists merged ("flush": a setting that defers the
 * merge is charged for it). One connection, with the worker's session settings (lib/db.ts). The backend's CPU is read
 * from /proc (the database must run on this machine) and the main thread's from process.cpuUsage(), around each
 * writer. `--drop` drops the named indexes after migrating, to price each one (e.g. file_content_symbols_name_trgm,
 * file_content_chunks_search_terms, service.symbol_vertex_id); `--set name=value` (repeatable) sets a parameter for the writing session (e.g. default_toast_compression=lz4).
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync, renameSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createEngine } from '../engine/index.ts';
import type { FileAnalysis } from '../engine/types.ts';
import {
  loadGraphLabels,
  writeChunks,
  writeDependsOn,
  writeFileGraph,
  writeFileRecords,
  type FileChunks,
} from '../activities/store/index.ts';
import { AGE_SESSION_SQL, SESSION_OPTIONS } from '../lib/db.ts';
import { migrate } from '../schema/migrate.ts';

const { values } = parseArgs({
  options: {
    analyses: { type: 'string', default: join(tmpdir(), 'ckg-go-std-analyses.jsonl') },
    limit: { type: 'string', default: 'Infinity' },
    runs: { type: 'string', default: '1' },
    drop: { type: 'string', default: '' },
    set: { type: 'string', multiple: true, default: [] },
  },
});

async function collect(file: string): Promise<void> {
  const root = join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src');
  const engine = createEngine({ threads: 2 });
  const out = createWriteStream(`${file}.part`);
  let n = 0;
  for await (const a of engine.analyzeTree(root)) {
    const line = JSON.stringify(a, (_k, v: unknown) =>
      v instanceof Uint8Array ? { b64: Buffer.from(v).toString('base64') } : v,
    );
    if (!out.write(`${line}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
    n++;
  }
  await engine.close();
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  renameSync(`${file}.part`, file);
  console.log(`collected ${n} analyses of ${root} into ${file}`);
}

async function load(file: string, limit: number): Promise<FileAnalysis[]> {
  const out: FileAnalysis[] = [];
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (out.length >= limit) break;
    if (line === '') continue;
    out.push(
      JSON.parse(line, (_k, v: unknown) =>
        v && typeof v === 'object' && 'b64' in v
          ? new Uint8Array(Buffer.from((v as { b64: string }).b64, 'base64'))
          : v,
      ) as FileAnalysis,
    );
  }
  return out;
}

if (!existsSync(values.analyses)) await collect(values.analyses);
const files = await load(values.analyses, Number(values.limit));
const counts = {
  files: files.length,
  chunks: files.reduce((a, f) => a + f.chunks.length, 0),
  symbols: files.reduce((a, f) => a + f.symbols.length, 0),
};
console.log(`${counts.files} files, ${counts.chunks} chunks, ${counts.symbols} symbols`);

const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:55432/ckg');
const admin = new pg.Client({ connectionString: new URL('/postgres', base).toString() });
await admin.connect();

type Stage = 'files' | 'chunks' | 'graph' | 'depends_on' | 'commit' | 'flush';
async function run(): Promise<void> {
  const dbName = `ckg_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(`/${dbName}`, base).toString();
  try {
    await migrate(url);
    const client = new pg.Client({ connectionString: url, options: SESSION_OPTIONS }); // the worker's session settings
    await client.connect();
    await client.query(AGE_SESSION_SQL);
    for (const idx of values.drop.split(',').filter(Boolean)) await client.query(`DROP INDEX ${idx}`);
    for (const kv of values.set) {
      const [k, v] = kv.split('=') as [string, string];
      await client.query(`SELECT set_config($1, $2, false)`, [k, v]);
    }
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const dbCpu = () => {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const x = f.slice(f.lastIndexOf(')') + 2).split(' ');
      return (Number(x[11]) + Number(x[12])) / 100;
    };
    const ownCpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    };
    const source = (
      await client.query<{ id: string }>(`INSERT INTO sources (owner, name) VALUES ('bench', 'go') RETURNING id`)
    ).rows[0]!.id;
    const syncId = (
      await client.query<{ id: string }>(
        `INSERT INTO sync_runs (source_id, status) VALUES ($1, 'running') RETURNING id`,
        [source],
      )
    ).rows[0]!.id;
    const ctx = { syncId, sourceId: source, analysisKey: 'bench' };
    const labels = await loadGraphLabels(client);
    const db = new Map<Stage, number>();
    const own = new Map<Stage, number>();
    const measure = async <T>(stage: Stage, fn: () => Promise<T>): Promise<T> => {
      const d0 = dbCpu();
      const o0 = ownCpu();
      const v = await fn();
      db.set(stage, (db.get(stage) ?? 0) + dbCpu() - d0);
      own.set(stage, (own.get(stage) ?? 0) + ownCpu() - o0);
      return v;
    };
    const wal0 = (await client.query<{ l: string }>('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0]!.l;
    const vertexByPath = new Map<string, string>();
    const t0 = performance.now();
    for (let i = 0; i < files.length; i += 500) {
      const batch = files.slice(i, i + 500);
      await client.query('BEGIN');
      const written = await measure('files', () => writeFileRecords(client, ctx, batch));
      const items: FileChunks[] = [];
      for (const f of batch) {
        const fileId = written.ids.get(f.file_path);
        if (fileId && f.chunks.length > 0) items.push({ fileId, filePath: f.file_path, chunks: f.chunks });
      }
      await measure('chunks', () => writeChunks(client, syncId, items));
      const g = await measure('graph', () =>
        writeFileGraph(
          client,
          ctx,
          batch.map((f) => ({ ...f, fileId: written.ids.get(f.file_path)! })),
          labels,
        ),
      );
      for (const [p, v] of g.vertexByPath) vertexByPath.set(p, v);
      await measure('commit', () => client.query('COMMIT'));
    }
    await measure('depends_on', () => writeDependsOn(client, ctx, files, vertexByPath, labels));
    // What the GIN indexes' pending lists still hold is the sync's cost too (merged by the next insert or vacuum).
    await measure('flush', () =>
      client.query(
        `SELECT gin_clean_pending_list(c.oid) FROM pg_class c JOIN pg_am a ON a.oid = c.relam
          WHERE a.amname = 'gin' AND c.relnamespace = 'public'::regnamespace`,
      ),
    );
    const wall = performance.now() - t0;
    const wal = (
      await client.query<{ b: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) AS b', [wal0])
    ).rows[0]!.b;
    const rows = (
      await client.query<Record<string, string>>(
        `SELECT (SELECT count(*) FROM file_content_chunks) AS chunks,
                (SELECT count(*) FROM file_content_symbols) AS content_symbols,
                (SELECT count(*) FROM service."Symbol") AS symbol_vertices,
                (SELECT count(*) FROM service.defines) AS defines,
                (SELECT count(*) FROM service.depends_on) AS depends_on`,
      )
    ).rows[0]!;
    await client.end();
    const total = [...db.values()].reduce((a, b) => a + b, 0);
    const ownTotal = [...own.values()].reduce((a, b) => a + b, 0);
    console.log(
      `run: wall ${(wall / 1000).toFixed(1)} s, database ${total.toFixed(2)} CPU-s, main thread ${ownTotal.toFixed(2)} CPU-s, ` +
        `WAL ${(Number(wal) / 1e6).toFixed(0)} MB, load ${loadavg()[0]!.toFixed(1)}; rows ${JSON.stringify(rows)}`,
    );
    for (const stage of ['files', 'chunks', 'graph', 'depends_on', 'commit', 'flush'] as const) {
      console.log(
        `  ${stage.padEnd(11)} database ${(db.get(stage) ?? 0).toFixed(2).padStart(6)} CPU-s, main thread ${(own.get(stage) ?? 0).toFixed(2).padStart(6)} CPU-s`,
      );
    }
  } finally {
    await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
  }
}

for (let r = 0; r < Number(values.runs); r++) await run();
await admin.end();
