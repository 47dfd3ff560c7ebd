import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { insertSource } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import { writeSyncFiles } from '../support/graph-data.ts';
import type { SymbolHit as Hit } from '../../graph-api/search/symbols.ts';

interface Body {
  items: Hit[];
  next_cursor: string | null;
  meta: { match: string; sync_ids: string[] };
}

describe('graph component: symbol search', () => {
  let app: GraphTestApp;
  let src: string;
  let latest: string;
  let older: string;
  let fileIds: Map<string, string>;
  const names = (b: Body) => b.items.map((h) => h.name);
  const search = (qs: string) => app.get<Body>(`/api/graph/search/symbols?source_id=${src}&${qs}`);

  before(async () => {
    app = await startGraphTestApp();
    src = await insertSource(app.db.pool);
    ({ syncId: older } = await writeSyncFiles(
      app.db.pool,
      src,
      [{ path: 'old.go', language: 'go', symbols: [{ name: 'ReadLegacy', kind: 'function', line: 3 }] }],
      { minutesAgo: 60 },
    ));
    ({ syncId: latest, ids: fileIds } = await writeSyncFiles(
      app.db.pool,
      src,
      [
        {
          path: 'io/read.go',
          language: 'go',
          symbols: [
            { name: 'Read', kind: 'function', line: 10 },
            { name: 'ReadAll', kind: 'function', line: 20 },
            { name: 'ReadFileWithContext', kind: 'function', line: 30 },
            { name: 'Reader', kind: 'class', line: 40 },
            { name: 'read', kind: 'method', line: 50 },
          ],
        },
        {
          path: 'py/loader.py',
          language: 'python',
          symbols: [
            { name: 'read_all', kind: 'function', line: 5 },
            { name: 'FileReader', kind: 'class', line: 9 },
            { name: '100%_done', kind: 'function', line: 12 },
          ],
        },
      ],
      { minutesAgo: 30 },
    ));
  });
  after(() => app.close());

  it('exact: the name, case-insensitive, the exact-case one first', async () => {
    const res = await search('q=read&match=exact');
    assert.equal(res.status, 200);
    assert.deepEqual(names(res.body), ['read', 'Read']);
    assert.ok(res.body.items.every((h) => h.match === 'exact'));
  });

  it('each hit names its defining file node, file record, line, kind and sync', async () => {
    const res = await search('q=ReadAll&match=exact');
    const hit = res.body.items[0]!;
    assert.deepEqual(
      {
        name: hit.name,
        kind: hit.kind,
        line: hit.line,
        node_id: hit.node_id,
        file_id: hit.file_id,
        file_path: hit.file_path,
        language: hit.language,
        sync_id: hit.sync_id,
      },
      {
        name: 'ReadAll',
        kind: 'function',
        line: 20,
        node_id: `src_${src}:io/read.go`,
        file_id: fileIds.get('io/read.go'),
        file_path: 'io/read.go',
        language: 'go',
        sync_id: latest,
      },
    );
  });

  it('prefix: names starting with q, exact matches first, then q as a whole word, then shorter names', async () => {
    const res = await search('q=Read&match=prefix');
    assert.deepEqual(names(res.body), ['Read', 'read', 'read_all', 'Reader', 'ReadAll', 'ReadFileWithContext']);
    assert.deepEqual(
      res.body.items.map((h) => h.match),
      ['exact', 'exact', 'prefix', 'prefix', 'prefix', 'prefix'],
    );
  });

  it('fuzzy (the default): also names containing q, and names close to a misspelt q', async () => {
    const res = await search('q=reader');
    assert.equal(res.body.meta.match, 'fuzzy');
    assert.deepEqual(names(res.body).slice(0, 2), ['Reader', 'FileReader']);
    assert.deepEqual(
      res.body.items.slice(0, 2).map((h) => h.match),
      ['exact', 'fuzzy'],
    );
    const typo = await search('q=ReadFileWithContxt');
    assert.equal(names(typo.body)[0], 'ReadFileWithContext');
    assert.equal(typo.body.items[0]!.match, 'fuzzy');
  });

  it('kind and language filters', async () => {
    assert.deepEqual(names((await search('q=read&match=prefix&kind=class')).body), ['Reader']);
    assert.deepEqual(names((await search('q=read&match=prefix&language=python')).body), ['read_all']);
    assert.deepEqual(names((await search('q=read&match=prefix&path_prefix=py/')).body), ['read_all']);
  });

  it("reads the source's newest completed sync unless sync_ids names others", async () => {
    assert.deepEqual(names((await search('q=ReadLegacy')).body), []);
    const res = await search(`q=ReadLegacy&sync_ids=${older}`);
    assert.deepEqual(names(res.body), ['ReadLegacy']);
  });

  it('pages with a cursor through the same order', async () => {
    const whole = await search('q=read&match=prefix');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: Body } = await search(
        `q=read&match=prefix&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(res.status, 200);
      seen.push(...res.body.items.map((h) => h.symbol_id));
      cursor = res.body.next_cursor;
    } while (cursor !== null);
    assert.deepEqual(
      seen,
      whole.body.items.map((h) => h.symbol_id),
    );
    assert.equal(seen.length, 6);
  });

  it('LIKE wildcards in q are literal', async () => {
    assert.deepEqual(names((await search('q=100%25&match=prefix')).body), ['100%_done']);
    assert.deepEqual(names((await search('q=%25&match=prefix')).body), []);
    assert.deepEqual(names((await search('q=_&match=prefix')).body), []);
  });

  const bad: Array<[string, string]> = [
    ['q=', 'q'],
    ['q=%20', 'q'],
    [`q=${'x'.repeat(201)}`, 'q'],
    ['q=a&match=regex', 'match'],
    ['q=a&kind=variable', 'kind'],
    ['q=a&limit=0', 'limit'],
    ['q=a&cursor=zz', 'cursor'],
  ];
  for (const [qs, field] of bad) {
    it(`400 naming ${field} for ${qs.slice(0, 30)}`, async () => {
      const res = await search(qs);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.field, field);
    });
  }
});
