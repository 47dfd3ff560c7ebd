/**
 * Valid code that a grammar of ours cannot parse as written, and the engine's repairs of it (LanguagePlugin
 * repairText): the repaired file has no syntax_error issue, keeps its symbols and imports, and is chunked from its own
 * text; a file with a real syntax error still reports it. Cases from hono's src/ (bench/syntax-errors.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeFile } from '../../engine/analyze-file.ts';
import { reconstruct } from '../../engine/index.ts';
import { repairTypeScript } from '../../engine/languages/typescript.ts';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'engine-gaps-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function analyze(name: string, text: string) {
  const absolute = join(dir, name);
  writeFileSync(absolute, text);
  const a = await analyzeFile({ path: name, absolute, size: text.length, maxFileBytes: 1 << 20 });
  assert.equal(reconstruct(a.chunks), text, `${name} reconstructs from its own text`);
  return a;
}

const SIGNATURES = `import type { Env } from './types'

/** Generic call signatures, one per line, as hono's context.ts writes them. */
interface Get<E extends Env> {
  <Key extends keyof E['Variables']>(key: Key): E['Variables'][Key]
  <Key extends keyof ContextVariableMap>(key: Key): ContextVariableMap[Key]
}

interface ParseBody {
  <T extends BodyData>(request: Request): Promise<T>
  <
    T extends BodyData,
    O = {},
  >(
    request: Request,
    options?: O
  ): Promise<T>
}

export function parseBody(request: Request): Promise<unknown> {
  return request.json()
}
`;

test('TypeScript: generic call signatures on their own lines parse without a syntax error', async () => {
  const a = await analyze('context.ts', SIGNATURES);
  assert.deepEqual(
    a.issues.filter((i) => i.code === 'syntax_error'),
    [],
  );
  assert.deepEqual(
    a.symbols.map((s) => `${s.kind} ${s.name}:${s.line}`),
    ['class Get:4', 'class ParseBody:9', 'function parseBody:20'],
  );
  assert.deepEqual(
    a.imports.map((i) => i.spec),
    ['./types'],
  );
});

test('TypeScript: export type * re-exports parse and stay imports', async () => {
  const a = await analyze(
    'index.ts',
    "export type * from './types'\nexport type * as Jsx from './jsx'\nexport const x = 1\n",
  );
  assert.deepEqual(
    a.issues.filter((i) => i.code === 'syntax_error'),
    [],
  );
  assert.deepEqual(
    a.imports.map((i) => `${i.spec}:${i.line}`),
    ['./types:1', './jsx:2'],
  );
});

test('TypeScript: a real syntax error is still reported, and a binary < across lines is not rewritten', async () => {
  const a = await analyze('broken.ts', `${SIGNATURES}\nfunction broken( {\n`);
  assert.equal(a.issues.filter((i) => i.code === 'syntax_error').length, 1);
  const expr = 'const a = 1\nconst b = a\n  < 2\n';
  const b = await analyze('expr.ts', expr);
  assert.deepEqual(b.issues, []);
  assert.equal(repairTypeScript(expr), null);
});

test('TypeScript repair keeps length and line breaks', () => {
  const fixed = repairTypeScript(SIGNATURES);
  assert.ok(fixed !== null);
  assert.equal(fixed.length, SIGNATURES.length);
  assert.deepEqual(
    [...fixed.matchAll(/\n/g)].map((m) => m.index),
    [...SIGNATURES.matchAll(/\n/g)].map((m) => m.index),
  );
});
