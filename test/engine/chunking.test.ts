import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  breadcrumb,
  chunkEmbeddingInput,
  chunkKeyInput,
  estimateTokens,
  fileEmbeddingInput,
  reconstruct,
} from '../../engine/index.ts';
import { lineSource, lineGreedy, materialize } from '../../engine/chunk/plan.ts';
import { chunkMarkdown, chunkText } from '../../engine/chunk/prose.ts';
import { splitLines, countLines } from '../../engine/text.ts';
import type Parser from 'tree-sitter';
import { cursorWalker, rowOf, rowStarts } from '../../engine/chunk/ast.ts';
import type { AstWalker } from '../../engine/chunk/ast.ts';
import { loadLanguage, parseText } from '../../engine/parse.ts';
import { pluginById } from '../../engine/languages/registry.ts';

describe('token estimate', () => {
  test('is words x 1.3 rounded up', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('one'), 2);
    assert.equal(estimateTokens('a b c d e f g h i j'), 13);
    assert.equal(estimateTokens('  tabs\tand\nnew  lines\r\n'), 6);
  });
});

describe('embedding inputs', () => {
  test('chunk input is the prefix plus the content, cut at 1400 characters', () => {
    assert.equal(chunkEmbeddingInput('# file: a\n'), 'search_document: # file: a\n');
    const long = 'x'.repeat(2000);
    const input = chunkEmbeddingInput(long);
    assert.equal(input.length, 1400);
    assert.equal(input, 'search_document: ' + 'x'.repeat(1400 - 17));
  });

  test("a chunk's key text: its names as words, then its messages without format verbs", () => {
    const content = [
      '# file: stats.py',
      '',
      'def harmonic_mean(data):',
      "    # don't guess, it's wrong",
      "    raise StatisticsError(f'harmonic_mean requires at least one data point, got {n}')",
      '    key = "short"',
      '    log.Printf("time: unknown unit %q in duration %s", u, s)',
      '    path = "/usr/lib/python3.11/json"',
    ].join('\n');
    assert.equal(
      chunkKeyInput(content, ['harmonic_mean', 'HTTPServer', 'harmonic_mean']),
      'search_document: harmonic mean, http server\n' +
        'harmonic mean requires at least one data point, got\ntime: unknown unit in duration',
    );
    assert.equal(chunkKeyInput('x = 1\ny = "ab"', []), null);
    assert.equal(chunkKeyInput('x = 1', ['parseURL']), 'search_document: parse url');
    const many = Array.from({ length: 20 }, (_, i) => `s = "message ${i} ${'word '.repeat(30)}"`).join('\n');
    assert.equal(chunkKeyInput(many, [])!.length, 1400);
  });

  test('file input has path, type, language and the first 100 lines', () => {
    const content = Array.from({ length: 150 }, (_, i) => `l${i}`).join('\n') + '\n';
    const input = fileEmbeddingInput({ path: 'src/a.py', type: 'source', language: 'python', content });
    const head = Array.from({ length: 100 }, (_, i) => `l${i}\n`).join('');
    assert.equal(input, `search_document: path: src/a.py\ntype: source\nlanguage: python\n${head}`);
    assert.ok(!input.includes('l100'));
  });

  test('file input is truncated to exactly 1400 characters', () => {
    const content = 'y'.repeat(5000);
    const input = fileEmbeddingInput({ path: 'b.txt', type: 'doc', language: 'text', content });
    assert.equal(input.length, 1400);
    assert.ok(input.startsWith('search_document: path: b.txt\ntype: doc\nlanguage: text\nyyy'));
  });

  test('file input for an empty or binary file is the header alone', () => {
    assert.equal(
      fileEmbeddingInput({ path: 'logo.png', type: 'asset', language: '', content: '' }),
      'search_document: path: logo.png\ntype: asset\nlanguage: \n',
    );
  });
});

describe('reconstruct', () => {
  test('zero chunks give the empty string', () => {
    assert.equal(reconstruct([]), '');
  });

  test('drops the lines of a chunk that overlap the previous end_line and strips breadcrumbs', () => {
    const h = breadcrumb('f.txt', ['f.txt']);
    const chunks = [
      { chunk_index: 1, content: h + 'c\nd\ne', start_line: 3, end_line: 5 },
      { chunk_index: 0, content: h + 'a\nb\nc\n', start_line: 1, end_line: 3 },
    ];
    assert.equal(reconstruct(chunks), 'a\nb\nc\nd\ne');
  });

  test('breadcrumbs never gain extra lines from odd paths', () => {
    const h = breadcrumb('we\nird\r.txt', ['a\nb']);
    assert.equal(splitLines(h).length, 3);
    assert.equal(reconstruct([{ chunk_index: 0, content: h + 'body', start_line: 1, end_line: 1 }]), 'body');
  });
});

describe('line-greedy and prose chunkers', () => {
  const words = (n: number, w = 'w'): string => Array.from({ length: n }, () => w).join(' ');

  test('line-greedy respects the budget and overlaps by at most 64 tokens', () => {
    const text = Array.from({ length: 200 }, (_, i) => `${words(20)} ${i}\n`).join('');
    const src = lineSource('t.txt', splitLines(text));
    const ranges = lineGreedy(src, 0, 199, 6, 512, 64);
    assert.ok(ranges.length > 5);
    const chunks = materialize(
      src,
      ranges.map(([start, end]) => ({ start, end, chain: ['t.txt'], type: 'line', symbols: [] })),
      'text',
    );
    for (const c of chunks) assert.ok(c.token_count <= 512, `chunk ${c.chunk_index} has ${c.token_count} tokens`);
    for (let i = 1; i < ranges.length; i++) {
      const [s] = ranges[i]!;
      const [, prevEnd] = ranges[i - 1]!;
      assert.ok(s <= prevEnd, 'chunks overlap');
      const overlapWords = src.words.slice(s, prevEnd + 1).reduce((a, b) => a + b, 0);
      assert.ok(Math.ceil(overlapWords * 1.3) <= 64);
    }
    assert.equal(reconstruct(chunks), text);
  });

  test('a single line above the budget is a chunk of its own', () => {
    const text = `short\n${words(1000)}\nshort\n`;
    const src = lineSource('t.txt', splitLines(text));
    const ranges = lineGreedy(src, 0, 2, 6, 512, 64);
    assert.deepEqual(ranges[1], [1, 1]);
    assert.equal(
      reconstruct(
        materialize(
          src,
          ranges.map(([start, end]) => ({ start, end, chain: [], type: 'line', symbols: [] })),
          'text',
        ),
      ),
      text,
    );
  });

  test('markdown splits at headings, not inside fenced code, with the heading chain', () => {
    const text = `# Top\n\n${words(300, 'a')}\n\n## Sub\n\n\`\`\`\n# not a heading\n\`\`\`\n${words(300, 'b')}\n`;
    const src = lineSource('doc/R.md', splitLines(text));
    const planned = chunkMarkdown(src, 512);
    assert.deepEqual(
      planned.map((p) => [p.start, p.chain.join(' > '), p.type]),
      [
        [0, 'R.md > Top', 'heading'],
        [4, 'R.md > Top > Sub', 'heading'],
      ],
    );
    assert.equal(reconstruct(materialize(src, planned, 'markdown')), text);
  });

  test('text packs paragraphs and keeps blank lines with the paragraph before', () => {
    const text = `${words(250, 'p')}\n\n\n${words(250, 'q')}\n\nlast\n`;
    const src = lineSource('n.txt', splitLines(text));
    const planned = chunkText(src, 512);
    assert.deepEqual(
      planned.map((p) => [p.start, p.end]),
      [
        [0, 2],
        [3, 5],
      ],
    );
    assert.equal(countLines(text), 6);
  });
});

describe('AST walker rows', () => {
  /** Every node's rows as tree-sitter reports them, in the walker's order (children of each node it enters). */
  function positions(cursor: Parser.TreeCursor): string[] {
    const out: string[] = [];
    const visit = (): void => {
      if (!cursor.gotoFirstChild()) return;
      do {
        const s = cursor.startPosition;
        const e = cursor.endPosition;
        out.push(
          `${cursor.nodeType}@${cursor.startIndex}:${s.row}-${e.column === 0 && e.row > s.row ? e.row - 1 : e.row}`,
        );
        visit();
      } while (cursor.gotoNextSibling());
      cursor.gotoParent();
    };
    visit();
    return out;
  }

  function walked(walker: AstWalker): string[] {
    const out: string[] = [];
    for (const n of walker.children()) {
      out.push(`${n.type}@${n.startIndex}:${n.startRow}-${n.endRow}`);
      walker.enter(n.index);
      out.push(...walked(walker));
      walker.leave();
    }
    return out;
  }

  test('come from offsets and agree with tree-sitter’s positions (CRLF, no final break, astral characters)', async () => {
    const lang = await loadLanguage(pluginById('python')!, 'x.py');
    for (const text of [
      'def f():\r\n    return "é𝄞"\r\n\r\nclass C:\n    x = 1\n',
      'x = 1\n\n\ny = """a\nb\n"""',
      '# only a comment',
      '\n\n\ndef g(): pass\n\n',
    ]) {
      const tree = parseText(lang, text);
      assert.ok(tree);
      const lines = splitLines(text);
      const got = walked(cursorWalker(tree.walk(), rowStarts(lines)));
      assert.deepEqual(got, positions(tree.walk()), JSON.stringify(text));
      assert.ok(got.length > 0);
    }
  });

  test('rowOf is the number of line breaks before an offset', () => {
    const starts = rowStarts(splitLines('ab\ncd\n'));
    assert.deepEqual([...starts], [0, 3, 6]);
    assert.deepEqual(
      [0, 2, 3, 5, 6].map((x) => rowOf(starts, x)),
      [0, 0, 1, 1, 2],
    );
    assert.deepEqual([...rowStarts(splitLines('ab\ncd'))], [0, 3]);
    assert.equal(rowOf(rowStarts(splitLines('ab\ncd')), 5), 1);
    assert.deepEqual([...rowStarts([])], [0]);
  });
});
