// The gateway's merged API document built from the real components' documents (graph and ingestion in-process,
// real HTTP, the real database and Temporal): each shared name is defined once, identically, nothing is renamed,
// and the shared schemas describe the bodies the components really send.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type Koa from 'koa';
import type { Router } from '@koa/router';
import { METHODS, docShape, missingFrom, type Doc as ApiDoc, type DocShape } from '../api/doc-shape.ts';
import { insertSource } from '../support/fixtures.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean;
};
type Doc = {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
};

const jsonType = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

/** The problems of `value` against `schema` (the small subset of JSON Schema the shared schemas use). */
function problems(value: unknown, schema: Schema, at = '$'): string[] {
  const out: string[] = [];
  if (schema.enum && !schema.enum.includes(value)) out.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if ('const' in schema && value !== schema.const) out.push(`${at}: not ${JSON.stringify(schema.const)}`);
  if (schema.type) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const t = jsonType(value);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number')))
      out.push(`${at}: ${t} not ${types.join('|')}`);
  }
  if (schema.format === 'date-time' && typeof value === 'string' && Number.isNaN(Date.parse(value)))
    out.push(`${at}: not a date-time`);
  if (schema.format === 'uuid' && typeof value === 'string' && !/^[0-9a-f-]{36}$/.test(value))
    out.push(`${at}: not a uuid`);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const k of schema.required ?? []) if (!(k in obj)) out.push(`${at}.${k}: missing`);
    for (const [k, v] of Object.entries(obj)) {
      const sub = schema.properties?.[k];
      if (sub) out.push(...problems(v, sub, `${at}.${k}`));
      else if (schema.additionalProperties === false) out.push(`${at}.${k}: not in the schema`);
    }
  }
  return out;
}

function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refs(v, out));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

/** The routes a Koa app's routers register, as `METHOD /path/{param}` (HEAD, which GET implies, left out). */
function registeredRoutes(app: Koa): string[] {
  const out = new Set<string>();
  for (const mw of app.middleware as Array<Koa.Middleware & { router?: Router }>) {
    for (const layer of mw.router?.stack ?? []) {
      const template = String(layer.path).replace(/:(\w+)/g, '{$1}');
      for (const m of layer.methods) if (m !== 'HEAD') out.add(`${m} ${template}`);
    }
  }
  return [...out].sort();
}

/** The operations a document lists, as `METHOD /path/{param}`, and the path parameters each documents. */
function documentedRoutes(doc: ApiDoc): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      type Param = { in: string; name: string };
      const params: Param[] = [
        ...((item.parameters as unknown as Param[] | undefined) ?? []),
        ...((op.parameters as Param[] | undefined) ?? []),
      ];
      out.set(
        `${method.toUpperCase()} ${template}`,
        params.filter((p) => p.in === 'path').map((p) => p.name),
      );
    }
  }
  return out;
}

/** Routes served by middleware rather than a router: /health (lib/http.ts) and node detail's greedy node paths. */
const MIDDLEWARE_ROUTES = {
  graph: [
    'GET /health',
    'GET /api/graph/nodes/{node_id}',
    'GET /api/graph/nodes/{node_id}/file',
    'GET /api/graph/nodes/{node_id}/summary',
  ],
  ingestion: ['GET /health'],
};

describe('gateway: the merged document of the real components', () => {
  let app: GraphTestApp;
  let gw: TestGateway;
  let merged: Doc;
  let sourceId: string;

  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(gw.url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as Record<string, unknown> };
  };
  const schema = (name: string) => merged.components.schemas?.[name] as Schema;

  before(async () => {
    app = await startGraphTestApp();
    sourceId = await insertSource(app.db.pool);
    gw = await startGateway({
      DATABASE_URL: app.db.url,
      GRAPH_SERVICE_URL: app.url,
      INGESTION_SERVICE_URL: app.ingestion!.url,
      AUTH_DISABLED: 'true',
    });
    merged = (await send('GET', '/openapi.json')).body as Doc;
  });
  after(async () => {
    await send('DELETE', `/api/sources/${sourceId}`);
    await gw.close();
    await app.close();
  });

  it('one Error, Sync, Schedule and Health, each as every component defines it, and nothing renamed', async () => {
    assert.ok(merged.paths['/api/syncs']?.get, 'the graph document was merged');
    assert.ok(merged.paths['/api/syncs']?.post, 'the ingestion document was merged');
    for (const [section, entries] of Object.entries(merged.components)) {
      const renamed = Object.keys(entries).filter((n) => /_(graph|ingestion)$/.test(n));
      assert.deepEqual(renamed, [], `no renamed ${section}`);
    }
    const own = {
      graph: (await (await fetch(`${app.url}/openapi.json`)).json()) as Doc,
      ingestion: (await (await fetch(`${app.ingestion!.url}/openapi.json`)).json()) as Doc,
    };
    for (const name of ['Error', 'Sync', 'Schedule', 'Health']) {
      assert.ok(schema(name), `${name} is in the merged document`);
      for (const [component, doc] of Object.entries(own)) {
        assert.deepEqual(doc.components.schemas?.[name], schema(name), `${component} defines ${name} as merged`);
      }
    }
    for (const r of new Set(refs(merged))) {
      const [, , section, name] = r.split('/');
      assert.ok(merged.components[section!]?.[name!], `${r} resolves`);
    }
  });

  it('each component documents exactly the routes it registers, with their path parameters', async () => {
    const components = {
      graph: { app: app.app, url: app.url },
      ingestion: { app: app.ingestion!.app, url: app.ingestion!.url },
    };
    for (const [name, c] of Object.entries(components)) {
      const doc = (await (await fetch(`${c.url}/openapi.json`)).json()) as ApiDoc;
      const documented = documentedRoutes(doc);
      const registered = [...registeredRoutes(c.app), ...MIDDLEWARE_ROUTES[name as keyof typeof MIDDLEWARE_ROUTES]];
      assert.deepEqual([...documented.keys()].sort(), registered.sort(), `${name}: documented = registered`);
      for (const [route, params] of documented) {
        const inTemplate = [...route.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        assert.deepEqual(params.sort(), inTemplate.sort(), `${name} ${route}: its path parameters are documented`);
      }
    }
  });

  it('the documents are at least as complete as the hand-written ones they replaced', async () => {
    const baseline = JSON.parse(
      readFileSync(new URL('../fixtures/openapi/baseline.json', import.meta.url), 'utf8'),
    ) as Record<'graph' | 'ingestion' | 'gateway', DocShape>;
    const docs = {
      graph: (await (await fetch(`${app.url}/openapi.json`)).json()) as ApiDoc,
      ingestion: (await (await fetch(`${app.ingestion!.url}/openapi.json`)).json()) as ApiDoc,
    };
    for (const name of ['graph', 'ingestion'] as const) {
      assert.deepEqual(
        missingFrom(docShape(docs[name]), baseline[name]),
        [],
        `${name}: nothing the baseline says is lost`,
      );
    }
    // The gateway's own paths (/api/events, /mcp, ...), as the merged document serves them.
    assert.deepEqual(missingFrom(docShape(merged as ApiDoc), baseline.gateway), [], 'gateway: nothing lost');
  });

  it('chunk and symbol search are documented and answered through the gateway', async () => {
    for (const path of ['/api/graph/search/chunks', '/api/graph/search/symbols']) {
      assert.ok(merged.paths[path]?.get, `${path} is in the merged document`);
      const res = await send('GET', `${path}?q=parse&source_id=${sourceId}`);
      assert.equal(res.status, 200, path);
      assert.deepEqual(
        problems(res.body, schema(path.endsWith('chunks') ? 'ChunkSearchPage' : 'SymbolSearchPage')),
        [],
      );
      assert.deepEqual([res.body.items, res.body.next_cursor], [[], null]);
      const bad = await send('GET', `${path}?q=parse&limit=0`);
      assert.deepEqual([bad.status, (bad.body.error as { field?: string }).field], [400, 'limit']);
    }
  });

  it('the Error schema describes the error bodies of the gateway, the graph and the ingestion component', async () => {
    const bodies = [
      await send('GET', '/api/syncs/not-a-uuid'), // graph, with field
      await send('POST', '/api/syncs', { source_id: 'nope' }), // ingestion, with field
      await send('POST', '/api/syncs', { source_id: '00000000-0000-4000-8000-000000000000' }), // ingestion 404
      await send('GET', '/api/nothing-here'), // gateway 404
      await send('PUT', '/api/graph'), // gateway 405
    ];
    assert.deepEqual(
      bodies.map((b) => b.status),
      [400, 400, 404, 404, 405],
    );
    for (const b of bodies) assert.deepEqual(problems(b.body, schema('Error')), [], JSON.stringify(b.body));
    assert.deepEqual(problems({ error: { code: 'NOPE', message: 'x', extra: 1 } }, schema('Error')), [
      '$.error.code: "NOPE" not in enum',
      '$.error.extra: not in the schema',
    ]);
  });

  it('the Sync and Schedule schemas describe what the components return, field for field', async () => {
    const created = await send('POST', '/api/syncs', { source_id: sourceId });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const read = await send('GET', `/api/syncs/${String(created.body.id)}`);
    for (const sync of [created.body, read.body]) {
      assert.deepEqual(problems(sync, schema('Sync')), []);
      assert.deepEqual(Object.keys(sync), Object.keys(schema('Sync').properties!), 'the documented fields, in order');
    }
    assert.equal((await send('DELETE', `/api/syncs/${String(created.body.id)}`)).status, 204);

    const sched = await send('POST', '/api/schedules', { source_id: sourceId, interval_minutes: 1440 });
    assert.equal(sched.status, 201, JSON.stringify(sched.body));
    const listed = await send('GET', `/api/schedules?source_id=${sourceId}`);
    for (const s of [sched.body, (listed.body.items as unknown[])[0]]) {
      assert.deepEqual(problems(s, schema('Schedule')), []);
      assert.deepEqual(Object.keys(s as object), Object.keys(schema('Schedule').properties!));
    }
    assert.equal((await send('DELETE', `/api/schedules/${String(sched.body.id)}`)).status, 204);
  });
});
