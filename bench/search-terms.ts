/**
 * Search-term builder benchmark: prints figures, asserts nothing.
 * `node --import tsx bench/search-terms.ts [--chunks FILE] [--rounds N] [--limit N]`
 *
 * The chunks of the Go standard library (the engine's own output, content and symbols) are collected once into FILE
 * (default: a file in the OS temp folder, reused by later runs), then `chunkSearchVector` runs over all of them in
 * one thread, N rounds. Round 1 is the one that resembles a sync (each parse thread sees its half of the tree once,
 * so a cache of tokens across chunks mostly misses); later rounds show a warm JIT. Prints CPU µs per chunk, the
 * vector's size, lexemes per chunk and how many of them start with a digit.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createEngine } from '../activities/engine/index.ts';
import { chunkSearchVector, searchVectorText } from '../lib/search-vector.ts';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: join(tmpdir(), 'ckg-go-std-chunks.jsonl') },
    rounds: { type: 'string', default: '3' },
    limit: { type: 'string', default: 'Infinity' },
  },
});

interface Chunk {
  content: string;
  symbols: string[];
}

async function collect(file: string): Promise<void> {
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

async function load(file: string, limit: number): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (chunks.length >= limit) break;
    if (line !== '') chunks.push(JSON.parse(line) as Chunk);
  }
  return chunks;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const file = values.chunks;
if (!existsSync(file)) await collect(file);
const chunks = await load(file, Number(values.limit));
const bytes = chunks.reduce((s, c) => s + c.content.length, 0);
console.log(`${chunks.length} chunks, ${(bytes / chunks.length).toFixed(0)} characters on average`);

let size = 0;
let lexemes = 0;
let numeric = 0;
for (let round = 1; round <= Number(values.rounds); round++) {
  size = 0;
  const c0 = cpuMs();
  for (const c of chunks) size += chunkSearchVector(c.content, c.symbols).length;
  const ms = cpuMs() - c0;
  console.log(
    `round ${round}: ${(ms / 1000).toFixed(2)} CPU-s, ${((ms * 1000) / chunks.length).toFixed(1)} µs per chunk`,
  );
}
for (const c of chunks) {
  for (const entry of searchVectorText(chunkSearchVector(c.content, c.symbols)).split(' ')) {
    if (entry === '') continue;
    lexemes++;
    if (/^'[0-9]/.test(entry)) numeric++;
  }
}
console.log(
  `binary tsvector ${(size / chunks.length).toFixed(0)} bytes per chunk; ${(lexemes / chunks.length).toFixed(1)} ` +
    `lexemes per chunk, ${((100 * numeric) / lexemes).toFixed(1)} % starting with a digit`,
);
