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
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chunkSearchVector, searchVectorText } from '../lib/search-vector.ts';
import { collectGoChunks, DEFAULT_CHUNKS_FILE, loadChunks } from './support/go-chunks.ts';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: DEFAULT_CHUNKS_FILE },
    rounds: { type: 'string', default: '3' },
    limit: { type: 'string', default: 'Infinity' },
  },
});

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const file = values.chunks;
if (!existsSync(file)) await collectGoChunks(file);
const chunks = await loadChunks(file, Number(values.limit));
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
