/**
 * The fuzzer: malformed requests over every route of the graph and the ingestion component (bad JSON, wrong types,
 * huge bodies, NUL and invalid UTF-8, traversal in node ids, huge and negative limits, forged cursors, thousands of
 * sync ids, unknown fields, null; issue 27's injections: refs and URLs that git would read as options or commands,
 * local and ext:: URLs, credentials in URLs). Checks: no 5xx, no hang, every 4xx in the one error shape, every 400
 * naming a field, and no command ran (the injections' marker file never appears). Deterministic for a seed.
 */
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URLS, http, type Reply } from './common.ts';

/** The file every injected command would create. */
const MARKER = join(tmpdir(), 'ckg-fuzz-pwned');

export interface FuzzReport {
  requests: number;
  byStatus: Record<string, number>;
  fiveXx: Array<{ method: string; path: string; status: number; body: unknown }>;
  hangs: number;
  badShape: Array<{ method: string; path: string; status: number; body: unknown }>;
  /** The injections' marker file exists after the run: some input ran a command. */
  commandRan: boolean;
  ms: number;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UUID = '3f1c0a52-7d7e-4c1b-9a4e-5b8f6e2d1c0a';

export async function fuzz(total: number, seed: number, ids: { sourceId: string; syncId: string; nodeId: string }) {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
  const strings = [
    '',
    ' ',
    'a\u0000b',
    '\u0000',
    '\ud800',
    'x'.repeat(5000),
    '../../etc/passwd',
    '%00',
    '%ff%fe',
    '-1',
    '1e309',
    'null',
    "'; DROP TABLE sources; --",
    '<script>',
    '\uFFFD',
    'ü',
    '𝄞',
    `--upload-pack=touch ${MARKER}`,
    `-oProxyCommand=touch ${MARKER}`,
    `ext::sh -c touch% ${MARKER}`,
    'file:///etc',
    '/etc',
    'http://169.254.169.254/latest/meta-data',
    'https://x-access-token:ghp_fuzz@github.com/a/b.git',
    'git://host/r.git',
    'refs/heads/../x',
    'main.lock',
    '@{-1}',
    'HEAD~1',
  ];
  const values: unknown[] = [
    null,
    true,
    0,
    -1,
    1.5,
    1e308,
    [],
    {},
    [1, 2],
    { a: { b: '\u0000' } },
    'x'.repeat(70_000),
    ...strings,
  ];
  const queryVals = [
    '-1',
    '0',
    '99999999999999999999',
    '1.5',
    'abc',
    '%00',
    '%ff',
    'a%00b',
    '',
    'true',
    encodeURIComponent('x'.repeat(3000)),
    b64({ t: '2025-01-01T00:00:00Z', id: '------------------------------------' }),
    b64({ t: 'nope', id: UUID }),
    b64({ t: '2025-02-30T00:00:00Z', id: UUID }),
    b64({ t: '2025-01-01T00:00:00Z', id: '99999999999999999999999' }),
    b64('not json'),
    b64([1, 2]),
    '!!!',
  ];
  const idVals = [
    'not-a-uuid',
    '%00',
    '%ff%fe',
    '..%2F..%2Fetc',
    UUID,
    UUID.toUpperCase(),
    '1',
    '-1',
    '9'.repeat(40),
    'x'.repeat(600),
    ids.sourceId,
    ids.syncId,
  ];
  const nodeVals = [
    `src_${ids.sourceId}:..%2F..%2Fetc%2Fpasswd`,
    `src_${ids.sourceId}:a%00b`,
    `src_${ids.sourceId}:%ff%fe`,
    `src_${ids.sourceId}:`,
    `src_nope:a`,
    `src_${UUID}:a.ts`,
    '%2e%2e/%2e%2e',
    encodeURIComponent(ids.nodeId),
    `${encodeURIComponent(ids.nodeId)}/summary`,
    `${encodeURIComponent(ids.nodeId)}/file`,
    `src_${ids.sourceId}:${'a/'.repeat(2000)}`,
    '%E0%A4%A',
  ];
  const bodyKeys = [
    'source_type',
    'owner',
    'name',
    'url',
    'default_branch',
    'config',
    'enabled',
    'meta',
    'access_token',
    'source_id',
    'triggered_by',
    'ref',
    'config_overrides',
    'interval_minutes',
    'reason',
    'unknown_field',
    '\u0000',
  ];
  const body = (): unknown => {
    const kind = r();
    if (kind < 0.1) return { raw: pick(['{', '{"a":', 'nul', '[1,2', '\u0000', '{"owner":"\\ud800"}', '""']) };
    if (kind < 0.15)
      return {
        raw: Buffer.concat([Buffer.from('{"owner":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","name":"n"}')]),
      };
    if (kind < 0.18) return { raw: JSON.stringify({ owner: 'o', name: 'n', meta: { big: 'y'.repeat(1_200_000) } }) };
    if (kind < 0.22) return pick([null, [], 'str', 42, true]);
    const o: Record<string, unknown> = {};
    const n = 1 + Math.floor(r() * 4);
    for (let i = 0; i < n; i++) o[pick(bodyKeys)] = pick(values);
    if (r() < 0.3) o.source_id = pick([ids.sourceId, UUID, 'nope', null]);
    if (r() < 0.2) o.sync_ids = Array.from({ length: 3000 }, () => UUID);
    return o;
  };
  const q = (...names: string[]) =>
    names
      .filter(() => r() < 0.7)
      .map((n) => `${n}=${pick(queryVals)}`)
      .join('&');
  const routes: Array<() => [string, string, string, unknown?]> = [
    () => [
      'GET',
      URLS.graph,
      `/api/graph?${q('sync_ids', 'source_id', 'level', 'limit', 'cursor')}&sync_ids=${Array.from({ length: 2000 }, () => UUID).join(',')}`,
    ],
    () => ['GET', URLS.graph, `/api/graph?${q('sync_ids', 'level', 'include', 'format')}`],
    () => ['GET', URLS.graph, `/api/graph/stats?${q('sync_id', 'source_id')}`],
    () => ['GET', URLS.graph, `/api/graph/search?${q('q', 'type', 'limit', 'source_id')}`],
    () => ['GET', URLS.graph, `/api/graph/nodes/${pick(nodeVals)}?${q('sync_id', 'force')}`],
    () => ['GET', URLS.graph, `/api/sources?${q('limit', 'cursor')}`],
    () => ['GET', URLS.graph, `/api/sources/${pick(idVals)}`],
    () => ['POST', URLS.graph, '/api/sources', body()],
    () => ['PATCH', URLS.graph, `/api/sources/${pick(idVals)}`, body()],
    () => ['DELETE', URLS.graph, `/api/sources/${pick(idVals.filter((x) => x !== ids.sourceId))}`],
    () => ['GET', URLS.graph, `/api/syncs?${q('source_id', 'status', 'limit', 'cursor')}`],
    () => ['GET', URLS.graph, `/api/syncs/${pick(idVals)}`],
    () => ['GET', URLS.graph, `/api/syncs/${pick(idVals)}/issues?${q('level', 'phase', 'limit', 'cursor')}`],
    () => ['GET', URLS.graph, `/api/schedules?${q('source_id', 'limit', 'cursor')}`],
    () => ['POST', URLS.ingestion, '/api/syncs', body()],
    () => ['POST', URLS.ingestion, `/api/syncs/${pick(idVals.filter((x) => x !== ids.syncId))}/cancel`, body()],
    () => ['POST', URLS.ingestion, `/api/syncs/${pick(idVals.filter((x) => x !== ids.syncId))}/retry`, body()],
    () => ['POST', URLS.ingestion, `/api/syncs/${pick(idVals.filter((x) => x !== ids.syncId))}/clean`, body()],
    () => ['DELETE', URLS.ingestion, `/api/syncs/${pick(idVals.filter((x) => x !== ids.syncId))}`],
    () => ['POST', URLS.ingestion, '/api/schedules', body()],
    () => ['PATCH', URLS.ingestion, `/api/schedules/${pick(idVals)}`, body()],
    () => ['DELETE', URLS.ingestion, `/api/schedules/${pick(idVals)}`],
    () => ['GET', URLS.ingestion, `/ingest/workflows/${pick(idVals.filter((x) => x !== ids.sourceId))}`],
    () => ['GET', URLS.ingestion, `/ingest/schedules/${pick(idVals)}`],
    () => ['GET', pick([URLS.graph, URLS.ingestion]), `/${'a'.repeat(60_000)}`],
  ];

  rmSync(MARKER, { force: true });
  const report: FuzzReport = {
    requests: 0,
    byStatus: {},
    fiveXx: [],
    hangs: 0,
    badShape: [],
    commandRan: false,
    ms: 0,
  };
  const started = Date.now();
  const one = async () => {
    const [method, base, path, b] = pick(routes)();
    let reply: Reply;
    if (b !== undefined && typeof b === 'object' && b !== null && 'raw' in b) {
      reply = await http(method, base + path, (b as { raw: string | Buffer }).raw, { raw: true });
    } else {
      reply = await http(method, base + path, b);
    }
    report.requests++;
    const key = reply.failed ? `conn:${reply.failed.slice(0, 40)}` : String(reply.status);
    report.byStatus[key] = (report.byStatus[key] ?? 0) + 1;
    if (reply.hung) report.hangs++;
    const shortPath = path.length > 160 ? `${path.slice(0, 160)}…(${path.length})` : path;
    if (reply.status >= 500) report.fiveXx.push({ method, path: shortPath, status: reply.status, body: reply.body });
    if (reply.status >= 400 && reply.status < 500) {
      const e = (reply.body as { error?: { code?: unknown; message?: unknown; field?: unknown } } | undefined)?.error;
      const ok =
        typeof e?.code === 'string' &&
        typeof e.message === 'string' &&
        (reply.status !== 400 || (typeof e.field === 'string' && e.field !== ''));
      if (!ok) report.badShape.push({ method, path: shortPath, status: reply.status, body: reply.body });
    }
  };
  const workers = Array.from({ length: 8 }, async () => {
    while (report.requests < total) await one();
  });
  await Promise.all(workers);
  report.ms = Date.now() - started;
  report.commandRan = existsSync(MARKER);
  return report;
}
