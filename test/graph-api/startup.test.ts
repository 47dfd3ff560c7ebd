import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../lib/log.ts';
import { ConfigError } from '../../lib/errors.ts';
import { loadGraphConfig } from '../../graph-api/config.ts';
import { startGraphApi } from '../../graph-api/server.ts';
import { createEmptyDatabase, databaseUrl, dropDatabase } from '../support/db.ts';

describe('graph component: start-up', () => {
  let name: string;
  before(async () => {
    name = await createEmptyDatabase('ckg_graph_start');
  });
  after(() => dropDatabase(name));

  it('migrates an empty database, serves /health and /openapi.json, and logs graph_api_started', async () => {
    const lines: string[] = [];
    const log = createLogger('graph-api', { write: (l) => lines.push(l) });
    const config = loadGraphConfig({ DATABASE_URL: databaseUrl(name), APP_PORT: '0', APP_HOST: '127.0.0.1' });
    const handle = await startGraphApi(config, log);
    try {
      const health = await fetch(`${handle.url}/health`);
      assert.deepEqual(await health.json(), { status: 'ok' });
      const doc = (await (await fetch(`${handle.url}/openapi.json`)).json()) as { openapi: string; paths: object };
      assert.equal(doc.openapi, '3.1.0');
      assert.ok('/api/graph' in doc.paths);
      const started = lines
        .map((l) => JSON.parse(l) as { event: string; port?: number })
        .find((l) => l.event === 'graph_api_started');
      assert.equal(started?.port, handle.port);
      const unknown = await fetch(`${handle.url}/api/nothing`);
      assert.equal(unknown.status, 404);
      assert.equal(((await unknown.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
    } finally {
      await handle.close();
    }
  });

  it('refuses to start when EMBEDDING_DIM differs from the schema', async () => {
    const config = loadGraphConfig({ DATABASE_URL: databaseUrl(name), APP_PORT: '0', EMBEDDING_DIM: '768' });
    await assert.rejects(startGraphApi(config, createLogger('graph-api', { write: () => {} })), (err: Error) => {
      assert.equal(err.name, 'SchemaMismatchError');
      assert.match(err.message, /EMBEDDING_DIM=768/);
      return true;
    });
  });

  it('names the bad variable', () => {
    for (const [env, variable] of [
      [{ APP_PORT: 'eighty' }, 'APP_PORT'],
      [{ GRAPH_QUERY_TIMEOUT_SECONDS: '-1' }, 'GRAPH_QUERY_TIMEOUT_SECONDS'],
      [{ DENSE_LLM_URL: 'nope' }, 'DENSE_LLM_URL'],
      [{ SUMMARY_FILE_BUDGET_RATIO: '0.95' }, 'SUMMARY_NEIGHBOR_BUDGET_RATIO'],
    ] as const) {
      assert.throws(
        () => loadGraphConfig(env),
        (err: unknown) => err instanceof ConfigError && err.variable === variable,
      );
    }
  });
});
