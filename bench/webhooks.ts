/**
 * Issue 33's targets on the running stack (`bash scripts/stack.sh up`), through the gateway:
 * 1. a burst of 50 signed push deliveries in 10 s: acknowledgement p50/p99, and how many syncs it ends in (target
 *    ≤ 2, the last at the newest commit);
 * 2. 1,000 forged or malformed deliveries (bad signatures, unknown repositories, wrong content types, huge bodies,
 *    bad JSON, replayed ids): answers by status, 5xx count, syncs started (targets: 0 and 0);
 * 3. the PR report of a 10-file change: p50/p99 of GET /api/graph/pr once its sync completed (target ≤ 300 ms).
 *
 *   node --import tsx bench/webhooks.ts [--corpus DIR]    (DIR: a checkout to sync, e.g. fastapi; default: a small
 *                                                         generated tree)
 */
import { createHmac, randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { api, gateway, stackPool } from './support/gateway.ts';
import { git } from './support/corpus.ts';
import { percentile } from './reliability/common.ts';

const { values } = parseArgs({ options: { corpus: { type: 'string' } } });
const SECRET = `bench-${randomUUID()}`;
const pool = stackPool(2);

const fmt = (xs: number[]) =>
  `p50 ${percentile(xs, 50).toFixed(1)} ms, p99 ${percentile(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;
const sign = (raw: string) => `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;

async function post(
  raw: string | Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; ms: number; body: string }> {
  const t = performance.now();
  const res = await fetch(`${gateway}/ingest/webhooks/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: raw,
  });
  const body = await res.text();
  return { status: res.status, ms: performance.now() - t, body };
}

function pushPayload(fullName: string, branch: string, after: string) {
  return { ref: `refs/heads/${branch}`, after, deleted: false, repository: { full_name: fullName } };
}

async function syncCount(sourceId: string): Promise<number> {
  const r = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM sync_runs WHERE source_id = $1`, [sourceId]);
  return Number(r.rows[0]!.n);
}

async function settled(sourceId: string): Promise<void> {
  for (const deadline = Date.now() + 15 * 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    const r = await pool.query<{ busy: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM sync_followups WHERE source_id = $1)
           OR EXISTS (SELECT 1 FROM sync_runs WHERE source_id = $1 AND status IN ('pending', 'running')) AS busy`,
      [sourceId],
    );
    if (!r.rows[0]!.busy) return;
  }
  throw new Error('syncs did not settle in 15 minutes');
}

const dir = mkdtempSync(join(tmpdir(), 'ckg-bench-webhooks-'));
try {
  if (values.corpus) cpSync(values.corpus, dir, { recursive: true, filter: (p) => !p.includes('/.git') });
  else {
    for (let i = 0; i < 200; i++) {
      writeFileSync(
        join(dir, `m${i}.py`),
        `from m${Math.floor(i / 2)} import f\n\ndef g${i}(x):\n    return f(x) + ${i}\n`,
      );
    }
  }
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A', '-f');
  git(dir, 'commit', '-q', '-m', 'base');
  const name = `webhooks-${randomUUID().slice(0, 8)}`;
  const fullName = `bench/${name}`;
  const source = await api<{ id: string }>('POST', '/api/sources', {
    owner: 'bench',
    name,
    url: dir,
    default_branch: 'main',
    webhook_secret: SECRET,
    config: { embeddings: false },
  });
  console.log(`source ${source.id} (${values.corpus ?? 'generated tree'})`);

  // 1. The burst: one commit and one delivery every 200 ms for 10 s.
  const acks: number[] = [];
  let head = '';
  const t0 = Date.now();
  for (let i = 0; i < 50; i++) {
    writeFileSync(join(dir, 'burst.txt'), `${i}\n`);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', `burst ${i}`);
    head = git(dir, 'rev-parse', 'HEAD').trim();
    const raw = JSON.stringify(pushPayload(fullName, 'main', head));
    const r = await post(raw, {
      'x-github-event': 'push',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': sign(raw),
    });
    if (r.status !== 202) throw new Error(`burst delivery ${i}: ${r.status} ${r.body}`);
    acks.push(r.ms);
    const wait = t0 + (i + 1) * 200 - Date.now();
    if (wait > 0) await new Promise((res) => setTimeout(res, wait));
  }
  await settled(source.id);
  const runs = await pool.query<{ commit: string; status: string }>(
    `SELECT stats ->> 'commit_sha' AS commit, status FROM sync_runs WHERE source_id = $1 ORDER BY created_at`,
    [source.id],
  );
  const last = runs.rows.at(-1);
  console.log(`burst: 50 deliveries in ${((Date.now() - t0) / 1000).toFixed(1)} s; ack ${fmt(acks)}`);
  console.log(
    `burst: ${runs.rows.length} syncs (${runs.rows.map((r) => r.status).join(', ')}); last at the newest commit: ${last?.commit === head}`,
  );

  // 2. 1,000 forged or malformed deliveries.
  const before = await syncCount(source.id);
  const replayRaw = JSON.stringify(pushPayload(fullName, 'main', head));
  const replayId = randomUUID();
  await post(replayRaw, {
    'x-github-event': 'push',
    'x-github-delivery': replayId,
    'x-hub-signature-256': sign(replayRaw),
  });
  await settled(source.id);
  const baseline = await syncCount(source.id);
  const kinds: Array<[string, () => Promise<{ status: number; ms: number; body: string }>]> = [
    [
      'bad signature',
      () =>
        post(replayRaw, {
          'x-github-event': 'push',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
        }),
    ],
    ['no signature', () => post(replayRaw, { 'x-github-event': 'push', 'x-github-delivery': randomUUID() })],
    [
      'unknown repository',
      () => {
        const raw = JSON.stringify(pushPayload(`nobody/${randomUUID()}`, 'main', head));
        return post(raw, {
          'x-github-event': 'push',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': sign(raw),
        });
      },
    ],
    [
      'wrong content type',
      () =>
        post(`payload=${encodeURIComponent(replayRaw)}`, {
          'content-type': 'application/x-www-form-urlencoded',
          'x-hub-signature-256': sign(replayRaw),
        }),
    ],
    ['bad JSON', () => post('{"repository": ', { 'x-hub-signature-256': sign('x') })],
    ['huge body', () => post(Buffer.alloc(6 * 1024 * 1024, 0x20), { 'x-hub-signature-256': sign('x') })],
    [
      'replayed id',
      () =>
        post(replayRaw, {
          'x-github-event': 'push',
          'x-github-delivery': replayId,
          'x-hub-signature-256': sign(replayRaw),
        }),
    ],
  ];
  const byKind = new Map<string, Map<number, number>>();
  let fiveXx = 0;
  let badShape = 0;
  const lat: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const [kind, send] = kinds[i % kinds.length]!;
    const r = await send();
    lat.push(r.ms);
    const m = byKind.get(kind) ?? byKind.set(kind, new Map()).get(kind)!;
    m.set(r.status, (m.get(r.status) ?? 0) + 1);
    if (r.status >= 500) fiveXx++;
    const body = JSON.parse(r.body) as { error?: { code?: string; message?: string }; results?: unknown };
    if (r.status >= 400 ? !(body.error?.code && body.error.message) : !body.results) badShape++;
  }
  await settled(source.id);
  const started = (await syncCount(source.id)) - baseline;
  console.log(
    `forged: 1000 deliveries, ${fmt(lat)}; 5xx: ${fiveXx}; answers outside the error shape: ${badShape}; syncs started: ${started}`,
  );
  for (const [kind, m] of byKind) console.log(`  ${kind}: ${[...m].map(([s, n]) => `${n} x ${s}`).join(', ')}`);
  void before;

  // 3. The PR report of a 10-file change.
  const files = git(dir, 'ls-files')
    .split('\n')
    .filter((f) => /\.(py|ts|js|go)$/.test(f))
    .slice(0, 10);
  git(dir, 'checkout', '-q', '-b', 'feature');
  for (const f of files) writeFileSync(join(dir, f), `${git(dir, 'show', `HEAD:${f}`)}\n# changed by the bench\n`);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'a 10-file change');
  const prHead = git(dir, 'rev-parse', 'HEAD').trim();
  git(dir, 'update-ref', 'refs/pull/1/head', prHead);
  git(dir, 'checkout', '-q', 'main');
  const pr = JSON.stringify({
    action: 'opened',
    number: 1,
    pull_request: { number: 1, base: { ref: 'main' }, head: { sha: prHead } },
    repository: { full_name: fullName },
  });
  const opened = await post(pr, {
    'x-github-event': 'pull_request',
    'x-github-delivery': randomUUID(),
    'x-hub-signature-256': sign(pr),
  });
  if (opened.status !== 202) throw new Error(`pull_request delivery: ${opened.status} ${opened.body}`);
  await settled(source.id);
  const reads: number[] = [];
  let counts: unknown;
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    const r = await api<{ counts: unknown }>('GET', `/api/graph/pr?source_id=${source.id}&number=1`);
    reads.push(performance.now() - t);
    counts = r.counts;
  }
  console.log(`pr report (${files.length} files changed): first ${reads[0]!.toFixed(1)} ms; ${fmt(reads.slice(1))}`);
  console.log(`pr report counts: ${JSON.stringify(counts)}`);
} finally {
  await pool.end();
  rmSync(dir, { recursive: true, force: true });
}
