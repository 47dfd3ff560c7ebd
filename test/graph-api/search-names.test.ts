/**
 * Issue 32: every search honours its scope and labels hits with their repository; names first (a file name or path
 * finds that file, an identifier its definition, before anything ranked by words or meaning).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { insertSource } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import { writeSyncFiles } from '../support/graph-data.ts';
import { hashVector } from '../support/vectors.ts';

interface ChunkHit {
  file_path: string;
  source_id: string;
  repository: string;
  symbols: string[];
  start_line: number;
  scores: { name: { rank: number; match: string } | null };
}
interface FileHit {
  id: string;
  file_path: string;
  source_id: string;
  repository: string;
  match?: string;
  distance: number | null;
}

describe('graph component: scoped search, names first', () => {
  let app: GraphTestApp;
  let fastapi: string;
  let other: string;
  let otherSync: string;
  const get = <T>(path: string) => app.get<T>(path);
  const chunks = (qs: string) => get<{ items: ChunkHit[] }>(`/api/graph/search/chunks?${qs}`);

  before(async () => {
    app = await startGraphTestApp();
    fastapi = await insertSource(app.db.pool, 'tiangolo', 'fastapi');
    other = await insertSource(app.db.pool, 'acme', 'widgets');
    const routing = [
      '"""Routing: the router and its routes."""',
      'import asyncio',
      '',
      'def request_response(func):',
      '    return func',
      '',
      'class APIRouter:',
      '    def add_api_route(self, path):',
      '        return path',
    ].join('\n');
    await writeSyncFiles(app.db.pool, fastapi, [
      {
        path: 'fastapi/routing.py',
        language: 'python',
        text: routing + '\n',
        symbols: [
          { name: 'request_response', kind: 'function', line: 4 },
          { name: 'APIRouter', kind: 'class', line: 7 },
          { name: 'add_api_route', kind: 'method', line: 8 },
        ],
        chunks: [
          { start: 1, end: 5, body: routing.split('\n').slice(0, 5).join('\n'), symbols: ['request_response'] },
          {
            start: 7,
            end: 9,
            body: routing.split('\n').slice(6).join('\n'),
            chunk_type: 'class',
            symbols: ['APIRouter', 'add_api_route'],
          },
        ],
        embedding: hashVector('routing', 896),
      },
      {
        // Mentions APIRouter many times without defining it: lexically strong, but not the definition.
        path: 'docs/tutorial/bigger_applications.md',
        type: 'doc',
        language: 'markdown',
        text: 'APIRouter APIRouter APIRouter: use an APIRouter per module; APIRouter routing routing.py\n',
        embedding: hashVector('docs', 896),
      },
      { path: 'tests/test_routing.py', type: 'test', language: 'python', embedding: hashVector('tests', 896) },
    ]);
    ({ syncId: otherSync } = await writeSyncFiles(app.db.pool, other, [
      {
        path: 'src/routing.py',
        language: 'python',
        text: 'class APIRouter:\n    pass\n',
        symbols: [{ name: 'APIRouter', kind: 'class', line: 1 }],
        embedding: hashVector('other routing', 896),
      },
    ]));
  });
  after(() => app.close());

  it("the specification's file search honours source_id and sync_ids and labels each result", async () => {
    const all = await get<{ results: FileHit[] }>('/api/graph/search?q=routing&limit=20');
    assert.equal(all.status, 200);
    assert.deepEqual(new Set(all.body.results.map((r) => r.source_id)), new Set([fastapi, other]));
    const mine = await get<{ results: FileHit[] }>(`/api/graph/search?q=routing&source_id=${fastapi}`);
    assert.ok(mine.body.results.length > 0);
    assert.ok(mine.body.results.every((r) => r.source_id === fastapi && r.repository === 'tiangolo/fastapi'));
    const bySync = await get<{ results: FileHit[] }>(`/api/graph/search?q=routing&sync_ids=${otherSync}`);
    assert.deepEqual(
      bySync.body.results.map((r) => [r.file_path, r.repository]),
      [['src/routing.py', 'acme/widgets']],
    );
    const bad = await get<{ error: { field: string } }>('/api/graph/search?q=routing&source_id=nope');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'source_id');
  });

  it('file search by name: the file a name, a path or the end of a path names comes first, in scope', async () => {
    for (const q of ['routing.py', 'fastapi/routing.py', 'ROUTING.PY']) {
      const res = await get<{ results: FileHit[] }>(
        `/api/graph/search/files?q=${encodeURIComponent(q)}&source_id=${fastapi}`,
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.results[0]!.file_path, 'fastapi/routing.py', q);
      assert.notEqual(res.body.results[0]!.match, 'meaning', q);
      assert.ok(res.body.results.every((r) => r.source_id === fastapi));
    }
    const exact = await get<{ results: FileHit[] }>(`/api/graph/search/files?q=fastapi/routing.py`);
    assert.equal(exact.body.results[0]!.match, 'path');
    // Without a scope both repositories' routing.py are found, each labelled.
    const both = await get<{ results: FileHit[] }>('/api/graph/search/files?q=routing.py');
    const named = both.body.results.filter((r) => r.match !== 'meaning').map((r) => `${r.repository}:${r.file_path}`);
    assert.deepEqual(named.sort(), ['acme/widgets:src/routing.py', 'tiangolo/fastapi:fastapi/routing.py']);
    // Words that name no file: meaning only.
    const words = await get<{ results: FileHit[] }>(`/api/graph/search/files?q=how+routes+work&source_id=${fastapi}`);
    assert.ok(words.body.results.every((r) => r.match === 'meaning'));
  });

  it('chunk search: a file name puts that file first; an identifier its definition, above mere mentions', async () => {
    const byName = await chunks(`q=routing.py&mode=lexical&source_id=${fastapi}`);
    assert.equal(byName.status, 200);
    assert.equal(byName.body.items[0]!.file_path, 'fastapi/routing.py');
    assert.equal(byName.body.items[0]!.scores.name?.match, 'path_suffix');
    for (const mode of ['lexical', 'hybrid']) {
      const def = await chunks(`q=APIRouter&mode=${mode}&source_id=${fastapi}`);
      const top = def.body.items[0]!;
      assert.equal(top.file_path, 'fastapi/routing.py', mode);
      assert.equal(top.start_line, 7, mode);
      assert.deepEqual(top.scores.name, { rank: 1, match: 'definition' });
      assert.equal(top.repository, 'tiangolo/fastapi');
      // The doc that only mentions it is still found, below.
      assert.ok(def.body.items.some((h) => h.file_path.startsWith('docs/')));
    }
    // The name in another spelling, or as the words it is made of: still its definition first.
    for (const q of ['requestResponse', 'request response', 'REQUEST_RESPONSE', 'api router']) {
      const top = (await chunks(`q=${encodeURIComponent(q)}&mode=lexical&source_id=${fastapi}`)).body.items[0]!;
      assert.equal(top.start_line, q === 'api router' ? 7 : 1, q);
      assert.deepEqual(top.scores.name, { rank: 1, match: 'definition' }, q);
    }
    // Words that spell no defined name are ranked by words alone.
    const words = await chunks(`q=${encodeURIComponent('routes work')}&mode=lexical&source_id=${fastapi}`);
    assert.ok(words.body.items.every((h) => h.scores.name === null));
    // A qualified name prefers the definition in the folder (or file) it names.
    const qualified = await chunks('q=fastapi.APIRouter&mode=lexical');
    assert.equal(qualified.body.items[0]!.file_path, 'fastapi/routing.py');
    // Semantic mode is ranking by meaning only.
    const semantic = await chunks(`q=APIRouter&mode=semantic&source_id=${fastapi}`);
    assert.ok(semantic.body.items.every((h) => h.scores.name === null));
  });

  it('chunk and symbol search stay in their scope and label hits', async () => {
    const scoped = await chunks(`q=APIRouter&source_id=${other}`);
    assert.ok(scoped.body.items.length > 0);
    assert.ok(scoped.body.items.every((h) => h.source_id === other && h.repository === 'acme/widgets'));
    const syms = await get<{ items: Array<{ source_id: string; repository: string }> }>(
      `/api/graph/search/symbols?q=APIRouter&source_id=${fastapi}`,
    );
    assert.deepEqual(
      syms.body.items.map((s) => [s.source_id, s.repository]),
      [[fastapi, 'tiangolo/fastapi']],
    );
  });
});
