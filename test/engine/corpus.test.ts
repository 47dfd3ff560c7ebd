import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHUNK_BUDGET_TOKENS, createEngine, reconstruct } from '../../engine/index.ts';
import { copyInto, corpora, listCorpus, sample } from './corpora.ts';

const TYPES = new Set(['source', 'test', 'config', 'script', 'doc', 'data', 'asset', 'service']);
const LANGUAGES = new Set([
  'javascript',
  'typescript',
  'python',
  'go',
  'rust',
  'java',
  'kotlin',
  'scala',
  'c',
  'cpp',
  'csharp',
  'ruby',
  'php',
  'bash',
  'swift',
  'markdown',
  'text',
  '',
]);
const SAMPLE_FILES = 250;
const engine = createEngine();
const temps: string[] = [];

after(async () => {
  await engine.close();
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

for (const corpus of corpora()) {
  test(`corpus ${corpus.name}: every sampled file classifies, reconstructs exactly and respects the budget`, async () => {
    const dir = mkdtempSync(join(tmpdir(), `engine-corpus-${corpus.name}-`));
    temps.push(dir);
    const all = listCorpus(corpus);
    // Module files always come along: resolution needs them (go.mod gives the module path).
    const files = [
      ...new Set([...sample(all, SAMPLE_FILES), ...all.filter((r) => r === 'go.mod' || r.endsWith('/go.mod'))]),
    ];
    copyInto(corpus, files, dir);
    const seen = new Set<string>();
    let withEdges = 0;
    for await (const a of engine.analyzeTree(dir)) {
      seen.add(a.file_path);
      assert.ok(TYPES.has(a.type), `${a.file_path}: type ${a.type}`);
      assert.ok(LANGUAGES.has(a.language), `${a.file_path}: language ${a.language}`);
      assert.match(a.content_hash, /^[0-9a-f]{64}$/);
      if (a.dependencies.length > 0) withEdges++;
      const errors = a.issues.filter((i) => i.level === 'error');
      assert.deepEqual(errors, [], `${a.file_path}: no errors`);
      if (a.binary || a.issues.some((i) => i.code === 'file_too_large')) continue;
      const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(readFileSync(join(dir, a.file_path)));
      assert.ok(reconstruct(a.chunks) === text, `${a.file_path} reconstructs byte for byte`);
      for (const c of a.chunks) {
        if (c.token_count > CHUNK_BUDGET_TOKENS) {
          assert.equal(
            c.start_line,
            c.end_line,
            `${a.file_path} chunk ${c.chunk_index} over budget (${c.token_count}) spans several lines`,
          );
        }
      }
    }
    assert.equal(seen.size, files.length, 'one record per file');
    assert.ok(withEdges > 0, 'some imports resolve inside the sample');
  });
}
