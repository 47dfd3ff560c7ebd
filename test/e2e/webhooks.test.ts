// Code-host webhooks end to end through the gateway (issue 33; docs/webhooks.md): deliveries in each host's real
// payload shape, signed with a known secret, against a local git repository standing in for the host. Pushes on the
// tracked branch sync the pushed commit; a burst coalesces; a pull/merge request syncs its head ref as a review
// snapshot that never becomes the source's last sync; its report compares it with the base; closing cleans it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { WorkflowNotFoundError } from '@temporalio/client';
import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { clientToken, configHome, runCli } from '../support/agent-stack.ts';
import { connectClient } from '../support/temporal.ts';
import { addCommit, createRepo, type TestRepo } from '../support/git-repos.ts';
import { startService, type Service } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';
import { jsonCall } from '../support/json-call.ts';

const SECRET = 'wh-secret-0123456789abcdef';
const WAIT_MS = 120_000;

const FILES: Record<string, string> = {
  'src/util.ts': 'export function clamp(x: number): number {\n  return Math.max(0, Math.min(1, x));\n}\n',
  'src/main.ts':
    "import { clamp } from './util';\n\nexport function run(x: number): number {\n  return clamp(x) * 2;\n}\n",
  'src/other.ts': "import { run } from './main';\n\nexport const twice = (x: number) => run(run(x));\n",
};

interface Res {
  status: number;
  body: Record<string, unknown>;
}

function sign(provider: 'github' | 'gitea', body: string, secret = SECRET): string {
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  return provider === 'github' ? `sha256=${hex}` : hex;
}

function githubPush(owner: string, name: string, branch: string, after: string) {
  return {
    ref: `refs/heads/${branch}`,
    before: '0'.repeat(40),
    after,
    created: false,
    deleted: false,
    forced: false,
    repository: {
      id: 1,
      name,
      full_name: `${owner}/${name}`,
      clone_url: `https://github.com/${owner}/${name}.git`,
      ssh_url: `git@github.com:${owner}/${name}.git`,
      html_url: `https://github.com/${owner}/${name}`,
      default_branch: 'main',
    },
    pusher: { name: 'octocat', email: 'o@example.invalid' },
    head_commit: { id: after, message: 'change', timestamp: '2026-11-27T00:00:00Z' },
    commits: [],
  };
}

describe('code-host webhooks through the gateway', () => {
  let svc: Service;
  let repo: TestRepo;
  let token: string;
  let sourceId: string;
  const owner = 'acme';
  const name = `hooks-${randomUUID().slice(0, 8)}`;

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> =>
    jsonCall(svc.gateway.url, token, method, path, body, headers);

  /** A delivery as the host sends it: no bearer token, the raw JSON body, the host's headers. */
  async function deliver(provider: string, raw: string, headers: Record<string, string>): Promise<Res> {
    const res = await fetch(`${svc.gateway.url}/ingest/webhooks/${provider}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: raw,
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  }

  function githubDelivery(event: string, payload: unknown, id: string = randomUUID(), secret = SECRET) {
    const raw = JSON.stringify(payload);
    return deliver('github', raw, {
      'x-github-event': event,
      'x-github-delivery': id,
      'x-hub-signature-256': sign('github', raw, secret),
    });
  }

  const syncsOf = async () =>
    (
      await svc.db.pool.query<{ id: string; status: string; ref: string; triggered_by: string }>(
        `SELECT id, status, ref, triggered_by FROM sync_runs WHERE source_id = $1 ORDER BY created_at, id`,
        [sourceId],
      )
    ).rows;

  /** Waits until no follow-up is queued and no sync of the source is active: the deliveries have all played out. */
  async function settled(): Promise<void> {
    await waitFor(
      'the webhook syncs to settle',
      async () => {
        const r = await svc.db.pool.query<{ busy: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM sync_followups WHERE source_id = $1)
               OR EXISTS (SELECT 1 FROM sync_runs WHERE source_id = $1 AND status IN ('pending', 'running')) AS busy`,
          [sourceId],
        );
        return !r.rows[0]!.busy;
      },
      WAIT_MS,
      100,
    );
  }

  const commitOf = async (syncId: string) =>
    (
      await svc.db.pool.query<{ sha: string }>(`SELECT stats ->> 'commit_sha' AS sha FROM sync_runs WHERE id = $1`, [
        syncId,
      ])
    ).rows[0]?.sha;

  before(async () => {
    svc = await startService({ accessTokenTtlSeconds: 3600 });
    repo = createRepo(FILES);
    token = await clientToken(svc.gateway.url, svc.idp.gatewayClientSecret);
    const created = await call('POST', '/api/sources', {
      owner,
      name,
      url: repo.dir,
      default_branch: 'main',
      webhook_secret: SECRET,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    sourceId = created.body.id as string;
  });

  after(async () => {
    if (sourceId) {
      const { client, close } = await connectClient();
      try {
        await client.workflow
          .getHandle(sourceId)
          .terminate('webhook test cleanup')
          .catch((err: unknown) => {
            if (!(err instanceof WorkflowNotFoundError) && !/already completed/i.test(String(err))) throw err;
          });
      } finally {
        await close();
      }
    }
    repo?.remove();
    await svc?.close();
  });

  it('keeps the secret write-only: reads say only that one is set', async () => {
    const r = await call('GET', `/api/sources/${sourceId}`);
    assert.equal(r.body.has_webhook_secret, true);
    assert.ok(!JSON.stringify(r.body).includes(SECRET));
    const short = await call('PATCH', `/api/sources/${sourceId}`, { webhook_secret: 'short' });
    assert.equal(short.status, 400);
    assert.equal((short.body.error as { field: string }).field, 'webhook_secret');
    assert.ok(!svc.logs.some((l) => JSON.stringify(l).includes(SECRET)), 'the secret is never logged');
  });

  it('refuses what is not a verified delivery, in the one error shape, and starts nothing', async () => {
    const payload = githubPush(owner, name, 'main', repo.head);
    const raw = JSON.stringify(payload);
    const cases: Array<[string, Promise<Res>, number, string]> = [
      [
        'no signature',
        deliver('github', raw, { 'x-github-event': 'push', 'x-github-delivery': 'a' }),
        401,
        'UNAUTHORIZED',
      ],
      ['wrong secret', githubDelivery('push', payload, 'b', 'another-secret-0123456789'), 401, 'UNAUTHORIZED'],
      [
        'signature of another body',
        deliver('github', raw.replace('octocat', 'mallory'), {
          'x-github-event': 'push',
          'x-github-delivery': 'c',
          'x-hub-signature-256': sign('github', raw),
        }),
        401,
        'UNAUTHORIZED',
      ],
      [
        'unknown repository',
        githubDelivery('push', githubPush('nobody', 'nothing', 'main', repo.head)),
        404,
        'NOT_FOUND',
      ],
      ['unknown provider', deliver('bitbucket', raw, {}), 404, 'NOT_FOUND'],
      [
        'not JSON',
        deliver('github', 'payload=%7B%7D', { 'x-hub-signature-256': 'sha256=00' }),
        400,
        'INVALID_ARGUMENT',
      ],
      [
        'form-encoded',
        fetch(`${svc.gateway.url}/ingest/webhooks/github`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-hub-signature-256': sign('github', raw) },
          body: `payload=${encodeURIComponent(raw)}`,
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> })),
        400,
        'INVALID_ARGUMENT',
      ],
      [
        'too large',
        deliver('github', JSON.stringify({ pad: 'x'.repeat(5 * 1024 * 1024) }), { 'x-hub-signature-256': 'sha256=00' }),
        400,
        'INVALID_ARGUMENT',
      ],
      [
        'gitlab token wrong',
        deliver(
          'gitlab',
          JSON.stringify({ object_kind: 'push', project: { path_with_namespace: `${owner}/${name}` } }),
          {
            'x-gitlab-event': 'Push Hook',
            'x-gitlab-token': 'not-the-secret-at-all',
            'x-gitlab-event-uuid': randomUUID(),
          },
        ),
        401,
        'UNAUTHORIZED',
      ],
    ];
    for (const [what, pending, status, code] of cases) {
      const r = await pending;
      assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
      assert.equal((r.body.error as { code: string }).code, code, what);
    }
    // Only the webhook path itself is open: the operators' /ingest reads keep token validation, paths below the
    // webhook route are no route at all, other methods are 405.
    const operators = await fetch(`${svc.gateway.url}/ingest/workflows/${randomUUID()}`);
    assert.equal(operators.status, 401);
    const below = await fetch(`${svc.gateway.url}/ingest/webhooks/github/x`, { method: 'POST' });
    assert.equal(below.status, 404);
    const get = await fetch(`${svc.gateway.url}/ingest/webhooks/github`);
    assert.equal(get.status, 405);
    assert.deepEqual(await syncsOf(), []);
  });

  it('syncs the pushed commit of the tracked branch, once per delivery id, and ignores other branches', async () => {
    const id = randomUUID();
    const first = await githubDelivery('push', githubPush(owner, name, 'main', repo.head), id);
    assert.equal(first.status, 202, JSON.stringify(first.body));
    assert.equal((first.body.results as Array<{ status: string }>)[0]!.status, 'accepted');
    const again = await githubDelivery('push', githubPush(owner, name, 'main', repo.head), id);
    assert.equal(again.status, 202);
    assert.equal((again.body.results as Array<{ status: string }>)[0]!.status, 'duplicate');
    const other = await githubDelivery('push', githubPush(owner, name, 'feature', repo.head));
    const ignored = (other.body.results as Array<{ status: string; reason: string }>)[0]!;
    assert.equal(ignored.status, 'ignored');
    assert.match(ignored.reason, /not the tracked branch/);
    const ping = await githubDelivery('ping', { zen: 'hi', repository: { full_name: `${owner}/${name}` } });
    assert.match((ping.body.results as Array<{ reason: string }>)[0]!.reason, /ping is not handled/);
    await settled();
    const runs = await syncsOf();
    assert.equal(runs.length, 1, JSON.stringify(runs));
    assert.equal(runs[0]!.status, 'completed');
    assert.equal(runs[0]!.triggered_by, 'webhook:github');
    assert.equal(await commitOf(runs[0]!.id), repo.head);
  });

  it('coalesces a burst of 50 pushes into at most 2 syncs, the last at the newest commit (Gitea signatures)', async () => {
    const before = (await syncsOf()).length;
    const acks: number[] = [];
    for (let i = 0; i < 50; i++) {
      const head = addCommit(repo, { 'src/burst.ts': `export const n = ${i};\n` }, `burst ${i}`);
      const raw = JSON.stringify({
        ...githubPush(owner, name, 'main', head),
        repository: { full_name: `${owner}/${name}` },
      });
      const r = await deliver('gitea', raw, {
        'x-gitea-event': 'push',
        'x-gitea-delivery': randomUUID(),
        'x-gitea-signature': sign('gitea', raw),
      });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      acks.push(r.status);
    }
    await settled();
    const runs = (await syncsOf()).slice(before);
    assert.ok(runs.length >= 1 && runs.length <= 2, `${runs.length} syncs: ${JSON.stringify(runs)}`);
    const last = runs.at(-1)!;
    assert.equal(last.status, 'completed');
    assert.equal(await commitOf(last.id), repo.head);
  });

  it('syncs a merge request as a review snapshot, reports it against its base, and cleans it when merged (GitLab)', async () => {
    const base = (await call('GET', `/api/sources/${sourceId}`)).body.last_sync_id as string;
    // The request's head: util.ts changes (clamp's body), a new file uses it; published as GitLab's MR ref.
    const mainHead = repo.head;
    const git = (...args: string[]) => execFileSync('git', ['-C', repo.dir, ...args], { encoding: 'utf8' }).trim();
    git('checkout', '-q', '-b', 'feature');
    const head = addCommit(repo, {
      'src/util.ts':
        'export function clamp(x: number): number {\n  return x < 0 ? 0 : x > 1 ? 1 : x;\n}\n\nexport function half(x: number): number {\n  return x / 2;\n}\n',
      'src/extra.ts': "import { half } from './util';\n\nexport const quarter = (x: number) => half(half(x));\n",
    });
    git('update-ref', 'refs/merge-requests/3/head', head);
    git('checkout', '-q', 'main');
    assert.equal(git('rev-parse', 'HEAD'), mainHead);
    const mr = (action: string, extra: Record<string, unknown> = {}) => ({
      object_kind: 'merge_request',
      event_type: 'merge_request',
      project: { path_with_namespace: `${owner}/${name}`, git_http_url: `https://gitlab.example/${owner}/${name}.git` },
      object_attributes: {
        iid: 3,
        action,
        source_branch: 'feature',
        target_branch: 'main',
        last_commit: { id: head },
        ...extra,
      },
    });
    const send = (payload: unknown) =>
      deliver('gitlab', JSON.stringify(payload), {
        'x-gitlab-event': 'Merge Request Hook',
        'x-gitlab-token': SECRET,
        'x-gitlab-event-uuid': randomUUID(),
      });
    const opened = await send(mr('open'));
    assert.equal(opened.status, 202, JSON.stringify(opened.body));
    const label = await send(mr('update'));
    assert.match((label.body.results as Array<{ reason: string }>)[0]!.reason, /changes no code/);
    await settled();
    const runs = await syncsOf();
    const review = runs.at(-1)!;
    assert.equal(review.ref, 'refs/merge-requests/3/head');
    assert.equal(review.status, 'completed');
    assert.equal(await commitOf(review.id), head);
    // A review snapshot is not the source's last sync.
    assert.equal((await call('GET', `/api/sources/${sourceId}`)).body.last_sync_id, base);

    const report = await call('GET', `/api/graph/pr?source_id=${sourceId}&number=3`);
    assert.equal(report.status, 200, JSON.stringify(report.body));
    assert.deepEqual(report.body.pr, {
      number: 3,
      provider: 'gitlab',
      base_ref: 'main',
      head_commit: head,
      closed: false,
    });
    assert.equal((report.body.base as { sync_id: string }).sync_id, base);
    const files = report.body.files as Array<{
      file_path: string;
      change: string;
      detail: string;
      dependents: { direct: number; total: number };
      symbols: { added: Array<{ name: string }>; changed: Array<{ name: string }>; removed: unknown[] };
    }>;
    assert.deepEqual(
      files.map((f) => [f.file_path, f.change]),
      [
        ['src/util.ts', 'changed'],
        ['src/extra.ts', 'added'],
      ],
      'util.ts first: three files depend on it',
    );
    const util = files[0]!;
    assert.deepEqual(util.dependents, { direct: 2, total: 3 });
    assert.deepEqual(
      util.symbols.added.map((s) => s.name),
      ['half'],
    );
    assert.deepEqual(
      util.symbols.changed.map((s) => s.name),
      ['clamp'],
    );
    assert.deepEqual(
      (report.body.impacted as Array<{ file_path: string; distance: number }>).map((h) => [h.file_path, h.distance]),
      [
        ['src/main.ts', 1],
        ['src/other.ts', 2],
      ],
    );
    assert.deepEqual(report.body.edges, {
      added: [{ source: `src_${sourceId}:src/extra.ts`, target: `src_${sourceId}:src/util.ts` }],
      removed: [],
    });
    const detail = await call('GET', util.detail);
    assert.equal(detail.status, 200, JSON.stringify(detail.body));

    // The same report for agents (MCP pr_report) and people at a terminal (ckg pr).
    const mcp = new Client({ name: 'test-webhooks', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.gateway.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const res = (await mcp.callTool({
        name: 'pr_report',
        arguments: { source_id: sourceId, number: 3 },
      })) as CallToolResult;
      const first = res.content[0];
      assert.ok(first?.type === 'text');
      const answer = JSON.parse(first.text) as { files: Array<{ path: string; symbols_changed: string[] }> };
      assert.deepEqual(answer.files[0], { ...answer.files[0], path: 'src/util.ts', symbols_changed: ['clamp'] });
    } finally {
      await mcp.close();
    }
    const home = configHome();
    try {
      const env = { XDG_CONFIG_HOME: home };
      const login = await runCli(['login', '--url', svc.gateway.url, '--client-id', 'service-gateway'], {
        ...env,
        CKG_CLIENT_SECRET: svc.idp.gatewayClientSecret,
      });
      assert.equal(login.code, 0, login.stderr);
      const cli = await runCli(['pr', sourceId, '3'], env);
      assert.equal(cli.code, 0, cli.stderr);
      const lines = cli.stdout.split('\n').filter((l) => l.trim() !== '');
      assert.match(lines[1]!, /^M\s+\d+\s+2\/3\s+src\/util\.ts\s+~clamp \+half/);
      assert.match(cli.stderr, /PR 3 .* against main/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }

    const merged = await send(mr('merge'));
    assert.equal((merged.body.results as Array<{ status: string }>)[0]!.status, 'closed');
    await waitFor(
      'the merged request’s sync to be cleaned',
      async () => (await syncsOf()).find((r) => r.id === review.id)!.status === 'cleaned',
      WAIT_MS,
      100,
    );
    const closed = await call('GET', `/api/graph/pr?source_id=${sourceId}&number=3`);
    assert.equal(closed.status, 409, JSON.stringify(closed.body));
  });
});
