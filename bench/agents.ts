/**
 * Benchmark of the agent-facing reads on the Go standard library, against the running local stack
 * (`bash scripts/stack.sh up`): a git copy of $(go env GOROOT)/src is synced twice through the gateway (the second
 * time with 60 files changed, 20 removed and 20 added; embeddings off), then it prints
 *
 * - diff of the two syncs: the first request (snapshots read from the database) and the p50 of repeats (cached);
 * - impact to depth 3 (dependents), p50 / p95 over files chosen at random and over the 20 most imported files,
 *   straight to the graph component and through the gateway;
 * - MCP tool-call overhead: the same read as REST through the gateway and as an MCP tools/call through the gateway's
 *   /mcp (the SDK's client over streamable HTTP), interleaved; p50 of each and of their difference.
 *
 *   set -a; source .stack/env; set +a; node --import tsx bench/agents.ts [--src DIR] [--keep]
 *   ... bench/agents.ts --source ID --repo DIR   (go on with a source of an earlier run: its newest completed sync is
 *                                                 the first, DIR is changed and synced for the second)
 *
 * The machine is shared: each figure is printed with the load average at that moment.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { encodeNodeId } from '../lib/node-id.ts';
import { SESSION_OPTIONS } from '../lib/db.ts';
import { freshSnapshotOf, git } from './support/snapshot.ts';
import { clientCredentialsToken } from './support/token.ts';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    src: { type: 'string' },
    source: { type: 'string' },
    repo: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const goSrc = args.src ?? join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src');
const env = (k: string) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set: source .stack/env (bash scripts/stack.sh up)`);
  return v;
};
const gateway = env('GATEWAY_URL');
const graphUrl = `http://127.0.0.1:${process.env.CKG_GRAPH_PORT ?? '8082'}`;
const load = () => loadavg()[0]!.toFixed(1);
const p = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const ms = (x: number) => `${x.toFixed(1)} ms`;

/** 60 files changed, 20 removed, 20 added (copies of existing files under new names). */
function changeRepo(dir: string): void {
  const files = git(dir, 'ls-files', '*.go').split('\n').filter(Boolean);
  const pick = (i: number) => files[(i * 7919) % files.length]!;
  for (let i = 0; i < 60; i++) appendFileSync(join(dir, pick(i)), `\n// changed by the benchmark ${i}\n`);
  for (let i = 60; i < 80; i++) if (existsSync(join(dir, pick(i)))) unlinkSync(join(dir, pick(i)));
  for (let i = 80; i < 100; i++) {
    const f = pick(i);
    if (existsSync(join(dir, f)))
      writeFileSync(join(dir, f.replace(/\.go$/, '_bench_copy.go')), readFileSync(join(dir, f)));
  }
  git(dir, 'add', '-A', '-f');
  git(dir, 'commit', '-q', '-m', 'change');
}

async function token(): Promise<string> {
  return (await clientCredentialsToken(`${gateway}/auth/realms/service/protocol/openid-connect/token`)).token;
}

async function main() {
  // Access tokens live 5 minutes and a sync of the Go standard library can take longer on a loaded machine.
  let auth = { authorization: `Bearer ${await token()}` };
  let fetchedAt = Date.now();
  const fresh = async () => {
    if (Date.now() - fetchedAt > 120_000) {
      auth = { authorization: `Bearer ${await token()}` };
      fetchedAt = Date.now();
    }
    return auth;
  };
  const call = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    const res = await fetch(url, {
      method,
      headers: { ...(await fresh()), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };
  const timed = async (url: string) => {
    const headers = await fresh();
    const t = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    return performance.now() - t;
  };

  const reuse = args.source;
  const dir = reuse ? args.repo! : freshSnapshotOf(goSrc, 'ckg-bench-agents-');
  const source = reuse
    ? { id: reuse }
    : await call<{ id: string }>('POST', `${gateway}/api/sources`, {
        owner: 'bench',
        name: `go-std-${Date.now()}`,
        url: dir,
        config: { embeddings: false },
      });
  console.log(`source ${source.id}, repository ${dir}`);
  const sync = async () => {
    const t = Date.now();
    const s = await call<{ id: string }>('POST', `${gateway}/api/syncs`, {
      source_id: source.id,
      triggered_by: 'bench',
    });
    for (;;) {
      await new Promise((r) => setTimeout(r, 2000));
      const r = await call<{ status: string; error: string | null }>('GET', `${gateway}/api/syncs/${s.id}`);
      if (r.status === 'completed') break;
      if (r.status !== 'pending' && r.status !== 'running') throw new Error(`sync ${r.status}: ${r.error}`);
    }
    console.log(`sync ${s.id}: ${((Date.now() - t) / 1000).toFixed(1)} s (load ${load()})`);
    return s.id;
  };
  const latestCompleted = async () => {
    for (;;) {
      const page = await call<{ items: Array<{ id: string; status: string }> }>(
        'GET',
        `${gateway}/api/syncs?source_id=${source.id}&limit=5`,
      );
      if (!page.items.some((r) => r.status === 'pending' || r.status === 'running')) {
        return page.items.find((r) => r.status === 'completed')!.id;
      }
      await new Promise((r) => setTimeout(r, 5000));
    }
  };
  const s1 = reuse ? await latestCompleted() : await sync();
  changeRepo(dir);
  const s2 = await sync();

  const db = new pg.Client({ connectionString: env('DATABASE_URL'), options: SESSION_OPTIONS });
  await db.connect();
  const files = (
    await db.query<{ file_path: string }>(`SELECT file_path FROM file_records WHERE sync_id = $1 ORDER BY random()`, [
      s2,
    ])
  ).rows.map((r) => r.file_path);
  await db.end();
  console.log(`files in the second sync: ${files.length}`);

  // Diff: the first request reads both snapshots; repeats come from the cache.
  const diffUrl = (base: string) => `${base}/api/graph/diff?from=${s1}&to=${s2}`;
  const first = await timed(diffUrl(graphUrl));
  const d = await call<{ counts: Record<string, number> }>('GET', diffUrl(graphUrl));
  console.log(`diff counts: ${JSON.stringify(d.counts)}`);
  const diffRuns: number[] = [];
  for (let i = 0; i < 20; i++) diffRuns.push(await timed(diffUrl(graphUrl)));
  const diffGw: number[] = [];
  for (let i = 0; i < 20; i++) diffGw.push(await timed(diffUrl(gateway)));
  console.log(
    `diff: first ${ms(first)}; repeats p50 ${ms(p(diffRuns, 0.5))} p95 ${ms(p(diffRuns, 0.95))} (graph component), ` +
      `p50 ${ms(p(diffGw, 0.5))} through the gateway (load ${load()})`,
  );

  // Impact depth 3 over random files and the most imported ones.
  const impactUrl = (base: string, path: string, depth = 3) =>
    `${base}/api/graph/impact?node_id=${encodeURIComponent(encodeNodeId(source.id, path))}&depth=${depth}&sync_id=${s2}`;
  const sample = files.slice(0, 300);
  const direct: number[] = [];
  const viaGw: number[] = [];
  const sizes: number[] = [];
  for (const f of sample) {
    direct.push(await timed(impactUrl(graphUrl, f)));
    viaGw.push(await timed(impactUrl(gateway, f)));
  }
  for (const f of sample.slice(0, 50)) sizes.push((await call<{ total: number }>('GET', impactUrl(graphUrl, f))).total);
  console.log(
    `impact depth 3, ${sample.length} random files: p50 ${ms(p(direct, 0.5))} p95 ${ms(p(direct, 0.95))} (graph component), ` +
      `p50 ${ms(p(viaGw, 0.5))} p95 ${ms(p(viaGw, 0.95))} through the gateway; median files reached ${p(sizes, 0.5)} ` +
      `(load ${load()})`,
  );
  const heavy: number[] = [];
  const heavyReach: number[] = [];
  const popular = ['errors/errors.go', 'fmt/print.go', 'io/io.go', 'strings/strings.go', 'sync/mutex.go', 'os/file.go'];
  for (const f of popular.filter((x) => files.includes(x))) {
    for (let i = 0; i < 10; i++) heavy.push(await timed(impactUrl(graphUrl, f)));
    heavyReach.push((await call<{ total: number }>('GET', impactUrl(graphUrl, f))).total);
  }
  if (heavy.length > 0) {
    console.log(
      `impact depth 3 of much-imported files (${popular.join(', ')}): p50 ${ms(p(heavy, 0.5))} p95 ${ms(p(heavy, 0.95))}; ` +
        `files reached ${heavyReach.join(', ')} (load ${load()})`,
    );
  }

  // MCP overhead: REST through the gateway vs the MCP tool through the gateway, same read, interleaved.
  const mcp = new Client({ name: 'bench', version: '1' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway}/mcp`), { requestInit: { headers: await fresh() } }),
  );
  const rest: number[] = [];
  const tool: number[] = [];
  const diffs: number[] = [];
  const nodes = files.slice(300, 500);
  for (const f of nodes) {
    const nodeId = encodeNodeId(source.id, f);
    const r = await timed(
      `${gateway}/api/graph/impact?node_id=${encodeURIComponent(nodeId)}&depth=2&sync_id=${s2}&limit=200`,
    );
    const t = performance.now();
    const res = await mcp.callTool({
      name: 'impact',
      arguments: { node_id: nodeId, depth: 2, sync_id: s2, limit: 200 },
    });
    const m = performance.now() - t;
    if (res.isError) throw new Error(JSON.stringify(res.content));
    rest.push(r);
    tool.push(m);
    diffs.push(m - r);
  }
  const restNode: number[] = [];
  const toolNode: number[] = [];
  for (const f of nodes.slice(0, 100)) {
    const nodeId = encodeNodeId(source.id, f);
    restNode.push(await timed(`${gateway}/api/graph/nodes/${encodeURIComponent(nodeId)}?sync_id=${s2}`));
    const t = performance.now();
    await mcp.callTool({ name: 'get_node', arguments: { node_id: nodeId, sync_id: s2 } });
    toolNode.push(performance.now() - t);
  }
  await mcp.close();
  console.log(
    `MCP impact (depth 2) vs REST through the gateway, ${nodes.length} calls each: REST p50 ${ms(p(rest, 0.5))}, ` +
      `MCP p50 ${ms(p(tool, 0.5))}, per-pair overhead p50 ${ms(p(diffs, 0.5))} (load ${load()})`,
  );
  console.log(
    `MCP get_node vs GET /api/graph/nodes/{id}, 100 calls each: REST p50 ${ms(p(restNode, 0.5))}, MCP p50 ` +
      `${ms(p(toolNode, 0.5))}, overhead p50 ${ms(p(toolNode, 0.5) - p(restNode, 0.5))} (load ${load()})`,
  );

  if (!args.keep) {
    await call('DELETE', `${gateway}/api/sources/${source.id}`).catch(() => undefined);
  }
  rmSync(dir, { recursive: true, force: true });
}

await main();
