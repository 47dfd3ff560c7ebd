import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

// What docker-compose.yml must wire (spec parts 5 and 8). `scripts/check-compose.sh` validates the file with the
// real `docker compose config`; this test checks the content rule by rule.
interface Service {
  command?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  expose?: string[];
  volumes?: string[];
}
const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};

describe('docker-compose.yml', () => {
  it('has every part of the deployment', () => {
    for (const s of ['postgres', 'temporal', 'temporal-ui', 'keycloak', 'gateway', 'ingestion', 'graph', 'worker']) {
      assert.ok(compose.services[s], `service ${s}`);
    }
  });

  it('runs each component from its entry point on its port', () => {
    const entry = (s: string) => compose.services[s]!.command?.join(' ') ?? '';
    assert.match(entry('gateway'), /gateway\/main\.ts/);
    assert.match(entry('graph'), /graph-api\/main\.ts/);
    assert.match(entry('ingestion'), /temporal\/ingestion-main\.ts/);
    assert.match(entry('worker'), /temporal\/worker-main\.ts/);
    assert.equal(String(compose.services.gateway!.environment!.APP_PORT), '8080');
    assert.equal(String(compose.services.ingestion!.environment!.APP_PORT), '8081');
    assert.equal(String(compose.services.graph!.environment!.APP_PORT), '8082');
    assert.deepEqual(compose.services.gateway!.ports, ['8080:8080']);
  });

  it('wires every gateway variable of spec part 5', () => {
    const env = compose.services.gateway!.environment!;
    for (const v of [
      'KEYCLOAK_URL',
      'KEYCLOAK_REALM',
      'KEYCLOAK_ISSUER',
      'KC_GATEWAY_CLIENT_SECRET',
      'GRAPH_SERVICE_URL',
      'INGESTION_SERVICE_URL',
      'DATABASE_URL',
      'AUTH_DISABLED',
      'CORS_ORIGINS',
    ]) {
      assert.ok(v in env, `gateway ${v}`);
    }
    assert.equal(env.GRAPH_SERVICE_URL, 'http://graph:8082');
    assert.equal(env.INGESTION_SERVICE_URL, 'http://ingestion:8081');
  });

  it('wires every graph variable of spec part 8', () => {
    const env = compose.services.graph!.environment!;
    for (const v of [
      'DATABASE_URL',
      'EMBEDDING_DIM',
      'EMBEDDING_URL',
      'EMBEDDING_MODEL',
      'DENSE_LLM_URL',
      'DENSE_LLM_MODEL',
      'LLM_API_KEY',
      'GRAPH_QUERY_TIMEOUT_SECONDS',
      'APP_PORT',
      'SUMMARY_MAX_TOKENS',
      'SUMMARY_TOTAL_BUDGET_CHARS',
      'SUMMARY_FILE_BUDGET_RATIO',
      'SUMMARY_NEIGHBOR_BUDGET_RATIO',
      'SUMMARY_NEIGHBOR_CHARS',
      'SUMMARY_EDGE_NEIGHBORS',
    ]) {
      assert.ok(v in env, `graph ${v}`);
    }
  });

  it('imports the realm with both clients into Keycloak', () => {
    const kc = compose.services.keycloak!;
    assert.ok(kc.command?.includes('--import-realm'));
    assert.ok(kc.volumes?.some((v) => v.startsWith('./deploy/keycloak:/opt/keycloak/data/import')));
    const realm = JSON.parse(readFileSync(new URL('../../deploy/keycloak/realm.json', import.meta.url), 'utf8')) as {
      clients: Array<{
        clientId: string;
        publicClient?: boolean;
        serviceAccountsEnabled?: boolean;
        attributes?: Record<string, string>;
      }>;
    };
    const frontend = realm.clients.find((c) => c.clientId === 'service-frontend');
    const gw = realm.clients.find((c) => c.clientId === 'service-gateway');
    assert.equal(frontend?.publicClient, true);
    assert.equal(frontend?.attributes?.['pkce.code.challenge.method'], 'S256');
    assert.equal(gw?.publicClient, false);
    assert.equal(gw?.serviceAccountsEnabled, true);
  });
});
