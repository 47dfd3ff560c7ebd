import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

// What docker-compose.yml must wire (spec parts 5 and 8). `scripts/check-compose.sh` validates the file with the
// real `docker compose config`; this test checks the content rule by rule.
interface Service {
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
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

  it("checks tokens against Keycloak's public issuer, the address it writes into iss (KC_HOSTNAME)", () => {
    const gw = compose.services.gateway!.environment!;
    const kc = compose.services.keycloak!.environment!;
    const publicUrl = /^\$\{KEYCLOAK_PUBLIC_URL:-([^}]+)\}$/.exec(String(kc.KC_HOSTNAME));
    assert.ok(publicUrl, 'KC_HOSTNAME comes from KEYCLOAK_PUBLIC_URL');
    assert.equal(
      gw.KEYCLOAK_ISSUER,
      `\${KEYCLOAK_ISSUER:-\${KEYCLOAK_PUBLIC_URL:-${publicUrl[1]}}/realms/\${KEYCLOAK_REALM:-service}}`,
    );
  });

  it('gives the image a node-owned folder at every named volume an application service mounts', () => {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    const userAt = dockerfile.indexOf('\nUSER node');
    assert.ok(userAt > 0, 'the image runs as node');
    for (const name of ['graph', 'ingestion', 'worker', 'gateway']) {
      for (const v of compose.services[name]!.volumes ?? []) {
        const target = v.split(':')[1]!;
        const chown = dockerfile.indexOf(`chown -R node:node ${target.split('/').slice(0, 4).join('/')}`);
        assert.ok(dockerfile.includes(`mkdir -p ${target}`), `${name}: ${target} is created in the image`);
        assert.ok(chown > 0 && chown < userAt, `${name}: ${target} is owned by node, before USER node`);
      }
    }
  });

  it('starts no component that can start a sync before the search attributes exist', () => {
    for (const name of ['ingestion', 'worker', 'graph']) {
      assert.equal(
        compose.services[name]!.depends_on?.['temporal-search-attributes']?.condition,
        'service_completed_successfully',
        name,
      );
    }
  });

  it("serves every component's /metrics on a port inside the network that Prometheus scrapes", () => {
    const prom = parse(readFileSync(new URL('../../deploy/prometheus/prometheus.yml', import.meta.url), 'utf8')) as {
      scrape_configs: Array<{ dns_sd_configs: Array<{ names: string[]; port: number }> }>;
    };
    const targets = prom.scrape_configs.flatMap((j) =>
      j.dns_sd_configs.flatMap((c) => c.names.map((n) => [n, c.port])),
    );
    for (const [name, port] of targets as Array<[string, number]>) {
      const s = compose.services[name]!;
      assert.ok(s.expose?.map(String).includes(String(port)), `${name} exposes ${port}`);
      assert.ok(!(s.ports ?? []).some((p) => p.endsWith(`:${port}`)), `${name}: ${port} is not published`);
    }
    assert.equal(String(compose.services.gateway!.environment!.METRICS_PORT), '8090');
    assert.equal(String(compose.services.worker!.environment!.METRICS_PORT), '8093');
  });

  it("builds the precise worker's image with all four indexers at the pinned versions and the toolchains they run", () => {
    const worker = compose.services['precise-worker'] as Service & { build?: { dockerfile?: string } };
    assert.equal(worker.build?.dockerfile, 'deploy/precise/Dockerfile');
    const dockerfile = readFileSync(new URL('../../deploy/precise/Dockerfile', import.meta.url), 'utf8');
    const script = readFileSync(new URL('../../scripts/stack/indexers.sh', import.meta.url), 'utf8');
    const pin = (name: string) => new RegExp(`^${name}=(\\S+)`, 'm').exec(script)?.[1];
    const expected: Record<string, string> = {
      CKG_SCIP_TYPESCRIPT: `/opt/ckg-cache/scip/typescript-${pin('SCIP_TYPESCRIPT_VERSION')}/node_modules/.bin/scip-typescript`,
      CKG_SCIP_PYTHON: `/opt/ckg-cache/scip/python-${pin('SCIP_PYTHON_VERSION')}/node_modules/.bin/scip-python`,
      CKG_SCIP_GO: `/opt/ckg-cache/scip/go-${pin('SCIP_GO_VERSION')}/bin/scip-go`,
      CKG_SCIP_JAVA_LIB: `/opt/ckg-cache/scip/java-${pin('SCIP_JAVA_VERSION')}/lib`,
    };
    for (const [name, path] of Object.entries(expected)) {
      assert.ok(dockerfile.includes(`${name}=${path}`), `${name}=${path}`);
    }
    for (const which of ['ts', 'py', 'go', 'java']) {
      assert.ok(dockerfile.includes(`bash scripts/stack/indexers.sh ${which}`), `installs the ${which} indexer`);
    }
    // scip-java needs javac and java (activities/precise/indexers.ts javacOf), and mvn to fetch its jars.
    assert.match(dockerfile, /apt-get install[^\n]*openjdk-17-jdk-headless/);
    assert.match(dockerfile, /apt-get install[^\n]*maven/);
    assert.match(dockerfile, /COPY --from=golang:[^\s]+ \/usr\/local\/go/);
  });
});
