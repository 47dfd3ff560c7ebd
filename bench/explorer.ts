/**
 * Benchmark of the web explorer in headless Chromium (Debian's chromium, playwright-core) on the Go standard library
 * ($(go env GOROOT)/src as a git repository, ≈11k files, ≈27k depends_on edges), against the running local stack
 * (`scripts/stack.sh up`): registers the source and syncs it without embeddings when it has no completed sync, signs
 * in as alice through the identity provider, picks the source, then prints
 *   - first render: graph request → response (graph-fetch), response → Cytoscape built (graph-build), response →
 *     first frame drawn (graph-render), as the page's own performance measures;
 *   - frame times (requestAnimationFrame intervals) while panning and zooming with the mouse, in the zoomed-out
 *     folder view and in the file view;
 *   - the time of 14 wheel steps from the folder view into the file view (the files are added on the way).
 *
 *   source .stack/env-style variables (GATEWAY_URL, KEYCLOAK_URL, KEYCLOAK_REALM) then:
 *   node --import tsx bench/explorer.ts [--runs N] [--src DIR]
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { ensureExplorerBuilt, launchBrowser } from '../test/support/browser.ts';
import { snapshotOf } from './support/snapshot.ts';
import { clientCredentialsToken } from './support/token.ts';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '3' }, src: { type: 'string' } } });
const runs = Math.max(1, Number(args.runs));
const goSrc = args.src ?? join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src');
const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080';
const idp = process.env.KEYCLOAK_URL ?? 'http://127.0.0.1:8180';
const realm = process.env.KEYCLOAK_REALM ?? 'service';
const stateDir = process.env.CKG_STATE_DIR ?? join(root, '.stack');

async function token(): Promise<string> {
  return (await clientCredentialsToken(`${idp}/realms/${realm}/protocol/openid-connect/token`, stateDir)).token;
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(gateway + path, {
    method,
    headers: {
      authorization: `Bearer ${await token()}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** The Go source and one completed sync of it (synced now, without embeddings, when there is none). */
async function goSync(): Promise<{ sourceId: string; syncId: string }> {
  const source = await api<{ id: string }>('POST', '/api/sources', {
    source_type: 'github_repo',
    owner: 'golang',
    name: 'go-stdlib',
    url: snapshotOf(goSrc),
    default_branch: 'main',
  });
  const runs = await api<{ items: Array<{ id: string; status: string }> }>('GET', `/api/syncs?source_id=${source.id}`);
  const done = runs.items.find((r) => r.status === 'completed');
  if (done) return { sourceId: source.id, syncId: done.id };
  await api('PATCH', `/api/sources/${source.id}`, { config: { embeddings: false } });
  const active = runs.items.find((r) => r.status === 'pending' || r.status === 'running');
  const id =
    active?.id ?? (await api<{ id: string }>('POST', '/api/syncs', { source_id: source.id, triggered_by: 'bench' })).id;
  const t0 = Date.now();
  process.stdout.write(`syncing the Go standard library (sync ${id})…\n`);
  for (;;) {
    const s = await api<{ status: string; error: string | null }>('GET', `/api/syncs/${id}`);
    if (s.status === 'completed') break;
    if (s.status === 'failed' || s.status === 'cancelled') throw new Error(`sync ${s.status}: ${s.error}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  process.stdout.write(`synced in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  return { sourceId: source.id, syncId: id };
}

const RECORD = `(() => {
  window.frameTimes = [];
  let last = performance.now();
  window.recording = true;
  const tick = (t) => { window.frameTimes.push(t - last); last = t; if (window.recording) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
})()`;

async function frames(page: Page, gesture: () => Promise<void>): Promise<number[]> {
  await page.evaluate(RECORD);
  await gesture();
  await page.evaluate('window.recording = false');
  return (await page.evaluate<number[]>('window.frameTimes')).slice(1);
}

const q = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;
const fmtFrames = (xs: number[]) =>
  `${xs.length} frames, median ${q(xs, 0.5).toFixed(1)} ms, p95 ${q(xs, 0.95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

async function panAndZoom(page: Page): Promise<{ pan: number[]; zoom: number[] }> {
  const box = (await page.locator('#graph').boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const pan = await frames(page, async () => {
    for (let i = 0; i < 3; i++) {
      await page.mouse.move(cx, cy);
      await page.mouse.down();
      await page.mouse.move(cx + 200, cy + 120, { steps: 30 });
      await page.mouse.move(cx - 150, cy - 80, { steps: 30 });
      await page.mouse.up();
    }
  });
  const zoom = await frames(page, async () => {
    await page.mouse.move(cx, cy);
    for (let i = 0; i < 10; i++) {
      await page.mouse.wheel(0, -120);
      await page.waitForTimeout(30);
    }
    for (let i = 0; i < 10; i++) {
      await page.mouse.wheel(0, 120);
      await page.waitForTimeout(30);
    }
  });
  return { pan, zoom };
}

async function main(): Promise<void> {
  await ensureExplorerBuilt();
  const { sourceId, syncId } = await goSync();
  const graph = await api<{ meta: { node_count: number; edge_count: number } }>('GET', `/api/graph?sync_ids=${syncId}`);
  process.stdout.write(
    `Go standard library: ${graph.meta.node_count} nodes, ${graph.meta.edge_count} edges (sync ${syncId})\n` +
      `chromium ${execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()}; load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} (shared 2-core machine)\n`,
  );
  const results: Array<Record<string, number>> = [];
  for (let run = 1; run <= runs; run++) {
    const browser = await launchBrowser({ width: 1400, height: 860 });
    try {
      const page = await browser.context.newPage();
      page.on('pageerror', (e) => process.stderr.write(`page error: ${e.message}\n`));
      await page.goto(`${gateway}/`);
      await page.click('#sign-in');
      await page.fill('input[name=username]', 'alice');
      await page.fill('input[name=password]', 'alice');
      await page.click('#kc-form-login button[type=submit]');
      await page.waitForSelector('#user:text-is("alice")');
      // Start from another source's graph (when there is one), so that picking the Go source is a change.
      await page.waitForSelector('#graph-status[data-nodes]', { timeout: 120_000 });
      const other = await page.evaluate<string | undefined>(
        `[...document.querySelectorAll('#source option')].map((o) => o.value).find((v) => v !== ${JSON.stringify(sourceId)})`,
      );
      if (other) {
        await page.selectOption('#source', other);
        await page.waitForSelector(`#graph-status[data-syncs]:not([data-syncs="${syncId}"])`, { timeout: 120_000 });
      }
      // Main-thread busy time (CDP Performance.TaskDuration/ScriptDuration): less sensitive to a loaded machine than wall
      // time, which also counts the time the renderer waited for a core.
      const cdp = await browser.context.newCDPSession(page);
      await cdp.send('Performance.enable');
      const metric = async () => {
        const { metrics } = await cdp.send('Performance.getMetrics');
        const get = (n: string) => metrics.find((m) => m.name === n)?.value ?? NaN;
        return { task: get('TaskDuration'), script: get('ScriptDuration') };
      };
      const busy0 = await metric();
      const t0 = Date.now();
      await page.selectOption('#source', sourceId);
      await page.waitForSelector(`#graph-status[data-syncs="${syncId}"]`, { timeout: 120_000 });
      const wall = Date.now() - t0;
      const busy1 = await metric();
      const taskMs = (busy1.task - busy0.task) * 1000;
      const scriptMs = (busy1.script - busy0.script) * 1000;
      const measures = Object.fromEntries(
        (
          await page.evaluate<Array<[string, number]>>(
            `performance.getEntriesByType('measure').map((m) => [m.name, m.duration])`,
          )
        ).map(([k, v]) => [k, v]),
      );
      const clusters = await panAndZoom(page);
      // Into the file view: zoom in around the centre until file labels show.
      const box = (await page.locator('#graph').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      const switchStart = Date.now();
      for (let i = 0; i < 14; i++) {
        await page.mouse.wheel(0, -150);
        await page.waitForTimeout(40);
      }
      const switchMs = Date.now() - switchStart;
      const files = await panAndZoom(page);
      const row = {
        wall,
        fetch: measures['graph-fetch'] ?? NaN,
        build: measures['graph-build'] ?? NaN,
        render: measures['graph-render'] ?? NaN,
        clusterPanMedian: q(clusters.pan, 0.5),
        clusterPanP95: q(clusters.pan, 0.95),
        clusterZoomMedian: q(clusters.zoom, 0.5),
        clusterZoomP95: q(clusters.zoom, 0.95),
        filePanMedian: q(files.pan, 0.5),
        filePanP95: q(files.pan, 0.95),
        fileZoomMedian: q(files.zoom, 0.5),
        fileZoomP95: q(files.zoom, 0.95),
        switchMs,
        taskMs,
        scriptMs,
      };
      results.push(row);
      process.stdout.write(
        `run ${run}: select → first frame ${wall} ms wall, main thread busy ${taskMs.toFixed(0)} ms (script ${scriptMs.toFixed(0)} ms) (graph-fetch ${row.fetch.toFixed(0)} ms, graph-build ${row.build.toFixed(0)} ms, graph-render ${row.render.toFixed(0)} ms after the response)\n` +
          `  folder view: pan ${fmtFrames(clusters.pan)}; zoom ${fmtFrames(clusters.zoom)}\n` +
          `  file view:   pan ${fmtFrames(files.pan)}; zoom ${fmtFrames(files.zoom)}\n` +
          `  zooming from the folder view into the file view (14 wheel steps, files added): ${switchMs} ms; load now ${loadavg()[0]!.toFixed(2)}\n`,
      );
    } finally {
      await browser.close();
    }
  }
  const med = (k: string) =>
    q(
      results.map((r) => r[k]!),
      0.5,
    );
  process.stdout.write(
    `median of ${runs}: select → first frame ${med('wall').toFixed(0)} ms (main thread busy ${med('taskMs').toFixed(0)} ms); graph-fetch ${med('fetch').toFixed(0)} ms; ` +
      `graph-render ${med('render').toFixed(0)} ms; folder view pan/zoom median frame ${med('clusterPanMedian').toFixed(1)}/${med('clusterZoomMedian').toFixed(1)} ms; ` +
      `file view pan/zoom median frame ${med('filePanMedian').toFixed(1)}/${med('fileZoomMedian').toFixed(1)} ms (p95 ${med('filePanP95').toFixed(1)}/${med('fileZoomP95').toFixed(1)} ms)\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
