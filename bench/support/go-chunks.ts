/**
 * The Go standard library's chunks (the engine's own output: content and symbols), collected once into a JSON-lines
 * file in the OS temp folder and read back by the search-term benchmarks (bench/search-terms.ts collects it,
 * bench/search-index.ts reads it).
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createEngine } from '../../engine/index.ts';

export interface Chunk {
  content: string;
  symbols: string[];
}

export const DEFAULT_CHUNKS_FILE = join(tmpdir(), 'ckg-go-std-chunks.jsonl');

/** Analyses $(go env GOROOT)/src with the engine and writes its chunks to `file` (through a `.part` file). */
export async function collectGoChunks(file: string): Promise<void> {
  const root = join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src');
  const engine = createEngine({ threads: 2 });
  const out = createWriteStream(`${file}.part`);
  let n = 0;
  for await (const a of engine.analyzeTree(root)) {
    for (const c of a.chunks) {
      out.write(`${JSON.stringify({ content: c.content, symbols: c.symbols })}\n`);
      n++;
    }
  }
  await engine.close();
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  renameSync(`${file}.part`, file);
  console.log(`collected ${n} chunks of ${root} into ${file}`);
}

/** The first `limit` chunks of a file written by collectGoChunks. */
export async function loadChunks(file: string, limit: number): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (chunks.length >= limit) break;
    if (line !== '') chunks.push(JSON.parse(line) as Chunk);
  }
  return chunks;
}
