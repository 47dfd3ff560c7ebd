import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startModelHost, type ModelHost } from '../../standins/model-host/server.ts';
import { dot, norm, postJson, quietLog } from './helpers.ts';

interface EmbeddingsBody {
  object: string;
  model: string;
  data: { object: string; index: number; embedding: number[] }[];
  usage: { prompt_tokens: number; total_tokens: number };
}

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

let host: ModelHost;

before(async () => {
  host = await startModelHost({ embeddingContextTokens: 1000 }, quietLog);
});
after(() => host.close());

async function embed(input: string | string[], extra: Record<string, unknown> = {}): Promise<number[][]> {
  const res = await postJson(host.embeddingUrl, { model: 'embeddings', input, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body as EmbeddingsBody;
  return body.data.map((d) => d.embedding);
}

/** File-level embedding source text as the ingestion pipeline builds it (spec part 1, rule 6). */
function fileText(path: string, language: string, body: string): string {
  return `search_document: path: ${path}\ntype: code\nlanguage: ${language}\n${body}`.slice(0, 1400);
}

const CORPUS: Record<string, string> = {
  'src/config.ts': fileText(
    'src/config.ts',
    'typescript',
    `import { readFileSync } from 'node:fs';
export interface AppConfig { port: number; databaseUrl: string }
export function parseConfig(text: string): AppConfig {
  const raw = JSON.parse(text);
  return { port: Number(raw.port), databaseUrl: String(raw.databaseUrl) };
}
export function loadConfigFile(path: string): AppConfig {
  return parseConfig(readFileSync(path, 'utf8'));
}`,
  ),
  'src/server.ts': fileText(
    'src/server.ts',
    'typescript',
    `import { parseConfig, loadConfigFile } from './config';
import { createPool } from './db/pool';
export async function startServer(argv: string[]) {
  const config = argv[0] ? loadConfigFile(argv[0]) : parseConfig('{}');
  const pool = createPool(config.databaseUrl);
  return listen(config.port, pool);
}`,
  ),
  'src/db/pool.ts': fileText(
    'src/db/pool.ts',
    'typescript',
    `import pg from 'pg';
export function createPool(url: string): pg.Pool {
  return new pg.Pool({ connectionString: url, max: 10 });
}
export async function closePool(pool: pg.Pool) { await pool.end(); }`,
  ),
  'lib/http_client.py': fileText(
    'lib/http_client.py',
    'python',
    `import urllib.request

class HttpClient:
    def __init__(self, base_url, timeout=10):
        self.base_url = base_url
        self.timeout = timeout

    def send_request(self, method, path, body=None):
        req = urllib.request.Request(self.base_url + path, method=method, data=body)
        return urllib.request.urlopen(req, timeout=self.timeout)
`,
  ),
  'app/main.py': fileText(
    'app/main.py',
    'python',
    `from lib.http_client import HttpClient

def main():
    client = HttpClient("https://example.org")
    response = client.send_request("GET", "/status")
    print(response.status)
`,
  ),
  'internal/cache/lru.go': fileText(
    'internal/cache/lru.go',
    'go',
    `package cache

import "container/list"

type LRUCache struct {
	capacity int
	items    map[string]*list.Element
	order    *list.List
}

func NewLRUCache(capacity int) *LRUCache {
	return &LRUCache{capacity: capacity, items: map[string]*list.Element{}, order: list.New()}
}

func (c *LRUCache) Get(key string) (any, bool) { return nil, false }
`,
  ),
  'cmd/server/main.go': fileText(
    'cmd/server/main.go',
    'go',
    `package main

import "example.org/app/internal/cache"

func main() {
	c := cache.NewLRUCache(128)
	serve(c)
}
`,
  ),
  'README.md': fileText(
    'README.md',
    'markdown',
    `# Example app

Run the server with a config file. The HttpClient in lib talks to the status service.
Configuration is read by parseConfig; see docs for every field.`,
  ),
};

describe('model host: embeddings', () => {
  it('returns EMBEDDING_DIM unit-length floats per input, in input order, with usage', async () => {
    const res = await postJson(host.embeddingUrl, {
      model: 'embeddings',
      input: ['search_document: a', 'search_document: function parseConfig() {}', 'x'],
    });
    assert.equal(res.status, 200);
    const body = res.body as EmbeddingsBody;
    assert.equal(body.object, 'list');
    assert.equal(body.model, 'embeddings');
    assert.deepEqual(
      body.data.map((d) => [d.object, d.index]),
      [
        ['embedding', 0],
        ['embedding', 1],
        ['embedding', 2],
      ],
    );
    for (const d of body.data) {
      assert.equal(d.embedding.length, 896);
      assert.ok(d.embedding.every((x) => Number.isFinite(x)));
      assert.ok(Math.abs(norm(d.embedding) - 1) < 1e-9, `norm ${norm(d.embedding)}`);
    }
    assert.ok(body.usage.prompt_tokens > 0);
    assert.equal(body.usage.total_tokens, body.usage.prompt_tokens);
  });

  it('accepts a single string input', async () => {
    const [v] = await embed('search_query: parseConfig');
    assert.equal(v?.length, 896);
  });

  it('honours a configured dimension', async () => {
    const small = await startModelHost({ dim: 64 }, quietLog);
    try {
      const res = await postJson(small.embeddingUrl, { model: 'm', input: 'search_query: hello world' });
      const body = res.body as EmbeddingsBody;
      assert.equal(body.data[0]?.embedding.length, 64);
      const refused = await postJson(small.embeddingUrl, { model: 'm', input: 'x', dimensions: 896 });
      assert.equal(refused.status, 400);
      assert.equal((refused.body as ErrorBody).error.param, 'dimensions');
    } finally {
      await small.close();
    }
  });

  it('is deterministic across requests and across server instances', async () => {
    const text = CORPUS['src/config.ts'] ?? '';
    const [a] = await embed(text);
    const [b] = await embed([text, 'search_document: other']);
    const other = await startModelHost({}, quietLog);
    try {
      const res = await postJson(other.embeddingUrl, { model: 'embeddings', input: text });
      assert.deepEqual((res.body as EmbeddingsBody).data[0]?.embedding, a);
    } finally {
      await other.close();
    }
    assert.deepEqual(a, b);
    const [c] = await embed(CORPUS['src/server.ts'] ?? '');
    assert.notDeepEqual(a, c);
  });

  it('treats the task prefix as an instruction, not content, and counts unprefixed inputs', async () => {
    host.resetStats();
    const [q, d, bare] = await embed([
      'search_query: parseConfig',
      'search_document: parseConfig',
      'parseConfig search_query',
    ]);
    assert.ok(q && d && bare);
    // The prefix word adds nothing: query and document forms of one text point the same way.
    assert.ok(Math.abs(dot(q, d) - 1) < 1e-9);
    // Whereas the words "search query" in content do change the vector.
    assert.ok(dot(q, bare) < 0.99);
    const s = host.stats().embeddings;
    assert.equal(s.inputs, 3);
    assert.equal(s.queryInputs, 1);
    assert.equal(s.documentInputs, 2);
    assert.equal(s.unprefixedInputs, 1);
  });

  it('splits identifiers: camelCase, snake_case and paths share sub-tokens', async () => {
    const [camel, snake, path, unrelated] = await embed([
      'search_query: sendRequest',
      'search_document: def send_request(self): pass',
      'search_document: path: net/send-request/index.ts',
      'search_document: func NewLRUCache(capacity int)',
    ]);
    assert.ok(camel && snake && path && unrelated);
    assert.ok(dot(camel, snake) > 0.3, `camel·snake ${dot(camel, snake)}`);
    assert.ok(dot(camel, path) > 0.3, `camel·path ${dot(camel, path)}`);
    assert.ok(Math.abs(dot(camel, unrelated)) < 0.1, `camel·unrelated ${dot(camel, unrelated)}`);
  });

  it('ranks the file that defines an identifier first for a query naming it', async () => {
    const paths = Object.keys(CORPUS);
    const docs = await embed(paths.map((p) => CORPUS[p] ?? ''));
    const cases: [string, string][] = [
      ['search_query: parseConfig', 'src/config.ts'],
      ['search_query: where is the AppConfig interface', 'src/config.ts'],
      ['search_query: HttpClient', 'lib/http_client.py'],
      ['search_query: send_request', 'lib/http_client.py'],
      ['search_query: NewLRUCache', 'internal/cache/lru.go'],
      ['search_query: lru cache', 'internal/cache/lru.go'],
      ['search_query: createPool', 'src/db/pool.ts'],
      ['search_query: startServer', 'src/server.ts'],
    ];
    const queries = await embed(cases.map(([q]) => q));
    cases.forEach(([query, expected], i) => {
      const q = queries[i] ?? [];
      const ranked = paths.map((p, j) => ({ p, score: dot(q, docs[j] ?? []) })).sort((a, b) => b.score - a.score);
      assert.equal(ranked[0]?.p, expected, `${query}: ${JSON.stringify(ranked.slice(0, 3))}`);
      // A file that merely uses the words still shares direction with the query; unrelated files barely do.
    });
    const q = queries[0] ?? [];
    const score = (p: string) => dot(q, docs[paths.indexOf(p)] ?? []);
    assert.ok(score('src/server.ts') > 0.05, 'a user of parseConfig shares direction with the query');
    assert.ok(score('src/server.ts') > 3 * Math.abs(score('internal/cache/lru.go')));
  });

  it('encodes base64 float32 when asked, matching the float output', async () => {
    const text = 'search_query: parseConfig';
    const [floats] = await embed(text);
    const res = await postJson(host.embeddingUrl, { model: 'embeddings', input: text, encoding_format: 'base64' });
    const encoded = (res.body as { data: { embedding: string }[] }).data[0]?.embedding ?? '';
    const buf = Buffer.from(encoded, 'base64');
    assert.equal(buf.length, 896 * 4);
    for (let i = 0; i < 896; i++) {
      assert.ok(Math.abs(buf.readFloatLE(i * 4) - (floats?.[i] ?? NaN)) < 1e-6);
    }
  });

  it('refuses malformed requests with OpenAI-style 400 bodies', async () => {
    const cases: [unknown, string][] = [
      [{ model: 'embeddings' }, 'input'],
      [{ model: 'embeddings', input: [] }, 'input'],
      [{ model: 'embeddings', input: [[1, 2, 3]] }, 'input'],
      [{ input: 'x' }, 'model'],
      [{ model: 'embeddings', input: 'x', encoding_format: 'int8' }, 'encoding_format'],
    ];
    for (const [body, param] of cases) {
      const res = await postJson(host.embeddingUrl, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const err = (res.body as ErrorBody).error;
      assert.equal(err.type, 'invalid_request_error');
      assert.equal(err.param, param);
      assert.equal(typeof err.message, 'string');
    }
    const notJson = await fetch(host.embeddingUrl, { method: 'POST', body: '{nope' });
    assert.equal(notJson.status, 400);
  });

  it('answers a context-length 400 when one input exceeds the embedding window', async () => {
    const fits = await postJson(host.embeddingUrl, { model: 'embeddings', input: 'a'.repeat(4000) });
    assert.equal(fits.status, 200);
    const res = await postJson(host.embeddingUrl, { model: 'embeddings', input: ['ok', 'a'.repeat(4001)] });
    assert.equal(res.status, 400);
    const err = (res.body as ErrorBody).error;
    assert.equal(err.code, 'context_length_exceeded');
    assert.match(err.message, /maximum context length is 1000 tokens/);
  });

  it('serves only embeddings on the embedding port', async () => {
    const res = await postJson(`${host.embeddingOrigin}/v1/chat/completions`, { model: 'dense', messages: [] });
    assert.equal(res.status, 404);
    const get = await fetch(host.embeddingUrl);
    assert.equal(get.status, 405);
    const health = await fetch(`${host.embeddingOrigin}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), {
      status: 'ok',
      endpoints: ['embeddings'],
      dim: 896,
      embedding_model: 'lexical',
    });
  });
});
