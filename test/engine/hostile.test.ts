import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, pluginById, reconstruct } from '../../engine/index.ts';
import { loadLanguage, parseText } from '../../engine/parse.ts';
import type { EngineIssue, FileAnalysis } from '../../engine/index.ts';

let root: string;
let outside: string;

function write(rel: string, data: string | Buffer): void {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, data);
}

async function analyze(
  opts: { includePaths?: string[]; maxFileBytes?: number } = {},
): Promise<{ files: Map<string, FileAnalysis>; tree: EngineIssue[] }> {
  const engine = createEngine({ threads: 2 });
  const tree: EngineIssue[] = [];
  const files = new Map<string, FileAnalysis>();
  try {
    for await (const a of engine.analyzeTree(root, { ...opts, onIssue: (i) => tree.push(i) }))
      files.set(a.file_path, a);
  } finally {
    await engine.close();
  }
  return { files, tree };
}

function wellFormed(a: FileAnalysis): void {
  assert.match(a.content_hash, /^[0-9a-f]{64}$/, `${a.file_path} hash`);
  assert.equal(a.name, a.file_path.split('/').pop());
  assert.ok(a.embedding_text.startsWith('search_document: path: ' + a.file_path));
  assert.ok(a.embedding_text.length <= 1400);
  a.chunks.forEach((c, i) => {
    assert.equal(c.chunk_index, i);
    assert.ok(c.start_line >= 1 && c.end_line >= c.start_line);
    assert.ok(c.content.startsWith(`# file: ${a.file_path}\n# in: `));
  });
  for (const i of a.issues) {
    assert.ok(['info', 'warning', 'error'].includes(i.level));
    assert.ok(i.phase && i.code && i.message);
  }
}

const deep = 'function f() {\n' + '  if (x) {\n'.repeat(3000) + '  y();\n' + '  }\n'.repeat(3000) + '}\n';

before(() => {
  root = mkdtempSync(join(tmpdir(), 'engine-hostile-'));
  outside = mkdtempSync(join(tmpdir(), 'engine-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'outside the tree\n');
  write('.git/HEAD', 'ref: refs/heads/main\n');
  write('.git/objects/ab/cdef', Buffer.from([0, 1, 2]));
  write('empty.py', '');
  write('no_newline.go', 'package x\n\nfunc F() int { return 1 }');
  write('crlf.cs', 'namespace A\r\n{\r\n    class B\r\n    {\r\n        void M() { }\r\n    }\r\n}\r\n');
  write('broken.ts', 'export function ok() { return 1 }\nfunction (((( {\n  const = ;\n');
  write(
    'invalid.py',
    Buffer.concat([Buffer.from('x = "'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"\ndef f():\n    pass\n')]),
  );
  write('min.js', 'var a=' + Array.from({ length: 4000 }, (_, i) => `{k${i}:${i}}`).join(',') + ';');
  write('deep.js', deep);
  write('big.c', 'int x;\n'.repeat(40_000));
  write('img.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
  write('blob.dat', Buffer.from([1, 2, 0, 3]));
  write('bom.py', '\ufeffprint(1)\n');
  write('src/lib/a.py', 'from . import b\n');
  write('src/lib/b.py', 'B = 1\n');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'escape.txt'));
  symlinkSync(join(root, 'src/lib/b.py'), join(root, 'link_b.py'));
  symlinkSync(join(root, 'src'), join(root, 'src_link'));
});

after(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('hostile input', () => {
  test('every file ends as a well-formed record, and nothing throws', async () => {
    const { files, tree } = await analyze({ maxFileBytes: 200_000 });
    for (const a of files.values()) wellFormed(a);
    assert.ok(![...files.keys()].some((p) => p.startsWith('.git/')), '.git is skipped');
    assert.ok(!files.has('escape.txt'), 'a symlink out of the tree is not followed');
    assert.ok(tree.some((i) => i.code === 'symlink_outside_tree' && i.file_path === 'escape.txt'));
    assert.ok(!files.has('src_link/lib/a.py'), 'a symlink to a directory is not followed');
    assert.equal(
      files.get('link_b.py')?.content_hash,
      files.get('src/lib/b.py')?.content_hash,
      'in-tree file symlink is read',
    );

    const empty = files.get('empty.py')!;
    assert.deepEqual([empty.chunks.length, empty.line_count, empty.language, empty.size_bytes], [0, 0, 'python', 0]);
    assert.equal(empty.content_hash, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');

    for (const p of ['no_newline.go', 'crlf.cs', 'broken.ts', 'deep.js', 'min.js', 'bom.py']) {
      const a = files.get(p)!;
      assert.equal(reconstruct(a.chunks), readFileSync(join(root, p), 'utf8'), `${p} reconstructs byte for byte`);
    }
    assert.equal(files.get('no_newline.go')!.line_count, 3);
    assert.deepEqual(
      files.get('crlf.cs')!.symbols.map((s) => `${s.kind} ${s.name} ${s.line}`),
      ['class B 3', 'method M 5'],
    );

    const broken = files.get('broken.ts')!;
    assert.ok(broken.issues.some((i) => i.code === 'syntax_error' && i.level === 'warning' && i.phase === 'parsing'));
    assert.ok(
      broken.symbols.some((s) => s.name === 'ok'),
      'symbols before the error survive',
    );

    const invalid = files.get('invalid.py')!;
    assert.ok(invalid.issues.some((i) => i.code === 'invalid_utf8'));
    assert.ok(reconstruct(invalid.chunks).includes('\ufffd'));
    assert.deepEqual(
      invalid.symbols.map((s) => s.name),
      ['f'],
    );
    assert.equal(reconstruct(invalid.chunks), new TextDecoder().decode(readFileSync(join(root, 'invalid.py'))));

    const min = files.get('min.js')!;
    assert.ok(min.issues.some((i) => i.code === 'minified_file' && i.level === 'info'));
    assert.equal(min.chunks.length, 1);

    const big = files.get('big.c')!;
    assert.ok(big.issues.some((i) => i.code === 'file_too_large'));
    assert.deepEqual([big.chunks.length, big.line_count, big.size_bytes], [0, 40_000, 280_000]);

    for (const p of ['img.png', 'blob.dat']) {
      const bin = files.get(p)!;
      assert.equal(bin.binary, true);
      assert.equal(bin.chunks.length, 0);
      assert.equal(bin.language, '');
    }
    assert.equal(files.get('img.png')!.type, 'asset');
    assert.equal(files.get('blob.dat')!.type, 'data');

    const d = files.get('deep.js')!;
    assert.ok(d.chunks.length > 1);
    for (const c of d.chunks) assert.ok(c.token_count <= 512);
  });

  test('include_paths limits the walk', async () => {
    const { files } = await analyze({ includePaths: ['src/lib/', 'bom.py'] });
    assert.deepEqual([...files.keys()].sort(), ['bom.py', 'src/lib/a.py', 'src/lib/b.py']);
    assert.deepEqual(files.get('src/lib/a.py')!.dependencies, [{ target_path: 'src/lib/b.py', weight: 1 }]);
  });

  test('bad options are refused up front, naming the option', () => {
    assert.throws(() => createEngine({ threads: 0 }), /threads/);
  });
});

describe('engine: parse timeout', () => {
  test('a parse halted by its timeout answers null, and the next parse is of the next text, not the halted one', async () => {
    const lang = await loadLanguage(pluginById('go')!, 'big.go');
    const big = `package big\n\n${Array.from({ length: 20_000 }, (_, i) => `func f${i}() int { return ${i} }\n`).join('')}`;
    assert.equal(parseText(lang, big, 0.001), null);
    const small = parseText(lang, 'package small\n\nfunc only() {}\n');
    assert.ok(small);
    assert.equal(small.rootNode.text, 'package small\n\nfunc only() {}\n');
    assert.deepEqual(
      small.rootNode.namedChildren.map((n) => n.type),
      ['package_clause', 'function_declaration'],
    );
    assert.ok(parseText(lang, big), 'the default timeout parses the big file');
  });
});
