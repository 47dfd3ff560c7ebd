import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  identifierLexemes,
  queryTerms,
  splitIdentifier,
  splitIdentifiers,
  tokens,
  toTsQuery,
} from '../../lib/search-terms.ts';
import { chunkSearchInput } from '../../graph-api/search/search.ts';
import { chunkSearchVector, searchVectorText } from '../../lib/search-vector.ts';
import { compareFused, fuse, fuseWith, queryShape } from '../../graph-api/search/fusion.ts';
import { buildSnippet } from '../../graph-api/search/snippet.ts';
import { LOOSE_CHUNKS, lexicalQueries } from '../../graph-api/search/chunks.ts';
import type { TermStats } from '../../graph-api/search/term-stats.ts';

describe('search terms: identifier splitting', () => {
  it('splits camelCase, PascalCase, snake_case, kebab-case, acronyms and digits', () => {
    assert.deepEqual(splitIdentifier('parseRequestBody'), ['parse', 'request', 'body']);
    assert.deepEqual(splitIdentifier('ParseRequestBody'), ['parse', 'request', 'body']);
    assert.deepEqual(splitIdentifier('parse_request_body'), ['parse', 'request', 'body']);
    assert.deepEqual(splitIdentifier('parse-request-body'), ['parse', 'request', 'body']);
    assert.deepEqual(splitIdentifier('parseHTTPRequest_v2'), ['parse', 'http', 'request', 'v', '2']);
    assert.deepEqual(splitIdentifier('GOMAXPROCS'), ['gomaxprocs']);
  });

  it('writes the identifiers of a text as words for the embedding model, the rest unchanged', () => {
    assert.equal(splitIdentifiers('ParseDur'), 'parse dur');
    assert.equal(
      splitIdentifiers('harmonic_mean requires OnesCount64: "x"'),
      'harmonic mean requires ones count 64: "x"',
    );
    assert.equal(chunkSearchInput('continueAsNew'), 'search_query: continue as new');
    assert.equal(chunkSearchInput('read a file'), 'search_query: read a file');
  });

  it('gives the joined whole first, then sub-words of two or more characters (digits kept)', () => {
    assert.deepEqual(identifierLexemes('parse_request_body'), ['parserequestbody', 'parse', 'request', 'body']);
    assert.deepEqual(identifierLexemes('OnesCount64'), ['onescount64', 'ones', 'count', '64']);
    assert.deepEqual(identifierLexemes('aB'), ['ab']);
    assert.deepEqual(identifierLexemes('Read'), ['read']);
    assert.deepEqual(identifierLexemes('__'), []);
  });

  it('a long hexadecimal literal is one term, a short one none; decimal numbers stay terms', () => {
    assert.deepEqual(identifierLexemes('0xEDB88320'), ['0xedb88320']);
    assert.deepEqual(identifierLexemes('0x10FFFF'), ['0x10ffff']);
    assert.deepEqual(identifierLexemes('0x80'), []);
    assert.deepEqual(identifierLexemes('0x7fff'), []);
    assert.deepEqual(identifierLexemes('2024'), ['2024']);
    const q = queryTerms('crc 0xEDB88320 ').lexemes;
    assert.ok(q.includes('0xedb88320') && !q.includes('88320') && !q.includes('edb'), q.join(' '));
    const v = searchVectorText(chunkSearchVector('t := [...]uint32{0x80, 0xEDB88320, 128}', []));
    assert.deepEqual(
      v.split(' ').map((e) => e.split(':')[0]),
      ["'t'", "'uint32'", "'uint'", "'32'", "'0xedb88320'", "'128'"],
    );
  });

  it('all spellings of one identifier meet in the whole lexeme', () => {
    const wholes = ['parseRequestBody', 'parse_request_body', 'ParseRequestBody', 'PARSE_REQUEST_BODY'].map(
      (t) => identifierLexemes(t)[0],
    );
    assert.deepEqual(new Set(wholes), new Set(['parserequestbody']));
    assert.ok(queryTerms('parse request body').lexemes.includes('parserequestbody'));
  });
});

describe('search terms: chunk vectors', () => {
  it('weights symbols A, the breadcrumb path and constructs B, the body D; labels are not terms', () => {
    const v = searchVectorText(
      chunkSearchVector('# file: net/http/server.go\n# in: Server\n\nfunc serve() {}', ['serve']),
    );
    const entries = new Map(v.split(' ').map((e) => e.split(':') as [string, string]));
    assert.equal(entries.get("'net'"), '1B');
    assert.equal(entries.get("'server'"), '3B,5B');
    assert.equal(entries.get("'func'"), '6');
    assert.equal(entries.get("'serve'"), '7,8A');
    assert.ok(!entries.has("'file'") && !entries.has("'in'"), v);
  });

  it('holds exactly the lexemes of its tokens, in first-seen order, in chunks of any size and script', () => {
    // The vector builder splits ASCII tokens without strings; lib/search-terms.ts is the reference. Spellings of one
    // whole in turn (a known whole with a known and a new sub-word: readall, read, readAll), repeated sub-words,
    // non-ASCII and hex tokens, and a chunk large enough to outgrow every per-chunk table.
    const text =
      'Σ readall read readAll parseRequest PARSE_REQUEST_BODY parse_request fooBarFoo a1b2c3 x$y__z HTMLParser ' +
      'naïveParser ÜberCase 0xEDB88320 0x80 0x 日本語テキスト İstanbul ' +
      Array.from({ length: 12_000 }, (_, i) => `ident${i.toString(36)}Part_${i % 97}`).join(' ');
    for (const content of [text.slice(0, 200), text]) {
      const expected = new Set<string>();
      for (const t of [...tokens(content), 'ÉtéFoo']) for (const l of identifierLexemes(t)) expected.add(l);
      const got = searchVectorText(chunkSearchVector(content, ['ÉtéFoo'])).match(/'[^']*'/g)!;
      assert.deepEqual(
        got.map((l) => l.slice(1, -1)),
        [...expected],
      );
    }
  });

  it('keeps at most 8 positions per lexeme and no quote or backslash in a lexeme', () => {
    const v = searchVectorText(chunkSearchVector(`x ${'err '.repeat(50)} it's a\\b`, []));
    assert.equal(/'err':([^ ]*)/.exec(v)![1]!.split(',').length, 8);
    for (const lexeme of v.match(/'[^']*'/g)!) assert.match(lexeme, /^'[\p{L}\p{N}]+'$/u);
  });
});

describe('search terms: queries', () => {
  it('drops English filler unless nothing else remains', () => {
    assert.deepEqual(queryTerms('how to read the file ').lexemes, ['read', 'file', 'readfile']);
    assert.deepEqual(queryTerms('the ').lexemes, ['the']);
  });

  it('the unfinished last identifier is also a prefix (3+ characters)', () => {
    assert.deepEqual(queryTerms('ParseDur').prefixes, ['parsedur']);
    assert.deepEqual(queryTerms('ParseDur ').prefixes, []);
    assert.deepEqual(queryTerms('go').prefixes, []);
  });

  it('builds an OR tsquery of quoted lexemes; nothing for a query without words', () => {
    assert.equal(toTsQuery(queryTerms('readAll')), "'readall' | 'read' | 'all' | 'readall':*");
    assert.equal(toTsQuery(queryTerms("' | !(&) :*")), null);
  });
});

describe('reciprocal rank fusion', () => {
  it('two middling ranks beat one first place; ties go to the smaller id', () => {
    const fused = fuse(
      [
        { id: 'a', value: 0.9 },
        { id: 'b', value: 0.5 },
      ],
      [
        { id: 'c', value: 0.1 },
        { id: 'b', value: 0.2 },
      ],
    );
    assert.deepEqual(
      fused.map((h) => h.id),
      ['b', 'a', 'c'],
    );
    assert.deepEqual(fused[0], {
      id: 'b',
      score: 2 / 62,
      lexical: { rank: 2, score: 0.5 },
      semantic: { rank: 2, distance: 0.2 },
    });
    assert.equal(compareFused({ score: 1, id: 'x' }, { score: 1, id: 'y' }), -1);
  });
});

describe('score fusion and query shapes', () => {
  it('score fusion: each score over its best hit (cosine from -1), a chunk one ranking missed gets its last figure', () => {
    // Lexical BM25 12 (a), 3 (b); semantic distances 0.2 (c), 0.6 (a): similarities 0.8, 0.4.
    const fused = fuseWith(
      [
        { id: 'a', value: 12 },
        { id: 'b', value: 3 },
      ],
      [
        { id: 'c', value: 0.2 },
        { id: 'a', value: 0.6 },
      ],
      { method: 'score', lexical: 0.7, k: 0 },
    );
    const sem = (sim: number) => (1 + sim) / 1.8;
    const want = new Map([
      ['a', 0.7 * 1 + 0.3 * sem(0.4)],
      ['b', 0.7 * 0.25 + 0.3 * sem(0.4)],
      ['c', 0.7 * 0.25 + 0.3 * sem(0.8)],
    ]);
    assert.deepEqual(
      fused.map((h) => h.id),
      ['a', 'c', 'b'],
    );
    for (const h of fused) assert.ok(Math.abs(h.score - want.get(h.id)!) < 1e-12, h.id);
    assert.deepEqual(fused[2]!.semantic, null);
  });

  it('tells messages from names and descriptions by their text', () => {
    const shapes = (qs: string[]) => qs.map((q) => queryShape(q));
    assert.deepEqual(
      shapes(['bufio.Reader.Read', 'routing.py', 'ParseDur', 'continue as new', 'net/http/request.go']),
      ['short', 'short', 'short', 'short', 'short'],
    );
    assert.deepEqual(
      shapes([
        'convert a string like 1h30m into a time span',
        'sha-256 checksum of a byte slice',
        "doesn't fit in one line",
      ]),
      ['long', 'long', 'long'],
    );
    assert.deepEqual(
      shapes([
        'ed25519: bad seed length:',
        'should be something like "go1.12"',
        'Group must be a string or an integer, not',
        'harmonic_mean requires at least one data point',
        'Invalid application MIME subtype',
      ]),
      ['message', 'message', 'message', 'message', 'message'],
    );
  });
});

describe('snippets', () => {
  it('picks the window with the most query terms and reports its file lines', () => {
    const body = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'parse the body', 'h'].join('\n');
    const s = buildSnippet(`# file: x.go\n# in: \n\n${body}`, 100, queryTerms('parse body'));
    assert.equal(s.start_line, 107);
    assert.equal(s.end_line, 108);
    assert.equal(s.marked, '«parse» the «body»\nh');
  });

  it('without a match: the first lines, nothing marked', () => {
    const s = buildSnippet('# file: x.go\n# in: \n\none\ntwo', 5, queryTerms('zzz'));
    assert.deepEqual([s.start_line, s.end_line, s.text, s.highlights], [5, 6, 'one\ntwo', []]);
  });
});

describe('lexical candidates: rare terms, the rarest within a budget', () => {
  const stats = (df: Record<string, number>, chunks = 50_000): TermStats => ({
    chunks,
    avgTokens: 100,
    rareDf: 10,
    df: (l) => df[l],
    frequency: (l) => (df[l] === undefined ? undefined : df[l] / chunks),
  });

  it('selects by the rarest terms whose chunks add up to LOOSE_CHUNKS; chunks holding every rare term first', () => {
    const q = lexicalQueries(
      queryTerms('unknown unit in duration string '),
      stats({ unknown: 900, unit: 300, duration: 250, string: 9000 }),
    )!;
    // string is common (18 %): it ranks but selects nothing; the joined words (unlisted: rare, 10) and duration (250)
    // select; unit (300) would pass 400.
    assert.equal(q.match, `'unknownunitdurationstring' | 'duration'`);
    assert.equal(q.strict, `'unknown' & 'unit' & 'duration' & 'unknownunitdurationstring'`);
    assert.deepEqual(q.terms, [`'unknown'`, `'unit'`, `'duration'`, `'string'`, `'unknownunitdurationstring'`]);
    assert.ok(LOOSE_CHUNKS >= 250 && LOOSE_CHUNKS < 550);
  });

  it('takes several rare terms while they fit, and an unlisted one as rare', () => {
    const q = lexicalQueries(queryTerms('harmonic mean data '), stats({ mean: 120, data: 2000 }))!;
    assert.equal(q.match, `'harmonic' | 'harmonicmeandata' | 'mean'`);
    // data (4 %) is rare too, but past the budget: it is in the strict set only.
    assert.equal(q.strict, `'harmonic' & 'mean' & 'data' & 'harmonicmeandata'`);
  });

  it('every term common: chunks holding all of them', () => {
    const q = lexicalQueries(queryTerms('read file '), stats({ read: 5000, file: 6000, readfile: 3000 }))!;
    assert.equal(q.match, `'read' & 'file' & 'readfile'`);
    assert.equal(q.strict, null);
  });
});
