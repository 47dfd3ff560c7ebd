/**
 * The screenshots of docs/operators.md, taken from the running stack's Temporal UI by headless Chromium (Debian's
 * `chromium`, installed by `bash scripts/stack.sh browser`) driven by playwright-core:
 *
 *   source /work/coord/ports-<n>.env   # or nothing: the default ports
 *   bash scripts/stack.sh up
 *   node --import tsx scripts/operator-screenshots.ts [--out docs/img/operators]
 *
 * Through the components' API it registers git copies of three Go standard library packages (`golang/crypto`,
 * `golang/net`, `golang/encoding-json`) and one unreachable repository (`golang/vanished`), syncs them (one fails),
 * adds an hourly schedule and triggers it once, cancels one sync and keeps another one running (the model-host
 * stand-in answers embeddings slowly meanwhile). Then it captures: the workflow list filtered by search attribute,
 * a sync's timeline of per-step activities with their summaries, its compact history, the `progress` query of the
 * running sync, the Send Signal dialog with the `retry` input, and the schedule's page. Finally it removes the
 * sources again (their Temporal histories stay).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { chromium, type Page } from 'playwright-core';
import { call, graphUrl, ingestionUrl } from '../bench/support/api.ts';
import { progressQuery } from '../workflows/sync-contract.ts';
import type { SyncProgress } from '../workflows/sync-types.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Sync as Run } from '../lib/api/schemas.ts';
import type { Source } from '../lib/api/routes/sources.ts';

const args = process.argv.slice(2);
const outArg = args.indexOf('--out');
const out = resolve(outArg >= 0 ? args[outArg + 1]! : 'docs/img/operators');
const uiUrl = process.env.TEMPORAL_UI_URL ?? `http://127.0.0.1:${process.env.CKG_TEMPORAL_UI_PORT ?? '8233'}`;
const temporalAddress = process.env.TEMPORAL_ADDRESS ?? `127.0.0.1:${process.env.CKG_TEMPORAL_PORT ?? '7233'}`;
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const modelHost = `http://127.0.0.1:${process.env.CKG_EMBEDDING_PORT ?? '8101'}`;
const chromiumPath = process.env.CKG_CHROMIUM ?? '/usr/bin/chromium';
const OWNER = 'golang';
const PACKAGES: Record<string, string> = { crypto: 'crypto', net: 'net', 'encoding-json': 'encoding/json' };

/** A request that is tried again once when the connection drops before an answer (a reused keep-alive socket). */
async function request<T>(method: string, url: string, body?: unknown): Promise<T> {
  try {
    return await call<T>(method, url, body);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    await sleep(500);
    return call<T>(method, url, body);
  }
}

/** A git repository holding a copy of one package of the Go standard library. */
function goPackageRepo(root: string, pkg: string): string {
  const goroot = execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim();
  const dir = join(root, pkg.replaceAll('/', '-'));
  cpSync(join(goroot, 'src', pkg), dir, { recursive: true });
  const git = (...a: string[]) => execFileSync('git', ['-C', dir, ...a], { stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=ckg', '-c', 'user.email=ckg@example.invalid', 'commit', '-q', '-m', `go/src/${pkg}`);
  return dir;
}

/** A full sync (incremental off: a re-sync of an unchanged tree would reuse every file and embed nothing). */
async function startSync(source: Source, by: string): Promise<Run> {
  return request<Run>('POST', `${ingestionUrl}/api/syncs`, {
    source_id: source.id,
    triggered_by: by,
    config_overrides: { incremental: false },
  });
}

async function runOf(id: string): Promise<Run> {
  return request<Run>('GET', `${graphUrl}/api/syncs/${id}`);
}

async function untilEnded(id: string, timeoutMs = 15 * 60_000): Promise<Run> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = await runOf(id);
    if (run.status !== 'pending' && run.status !== 'running') return run;
    if (Date.now() > until) throw new Error(`sync ${id} still ${run.status}`);
    await sleep(500);
  }
}

async function embeddingLatency(ms: number): Promise<void> {
  await call('PUT', `${modelHost}/_standin/faults`, { endpoint: 'embeddings', latencyMs: ms });
}

/** The columns of the workflow list (the UI keeps them in local storage): the search attributes an operator reads. */
const LIST_COLUMNS = {
  [namespace]: [
    { label: 'Status' },
    { label: 'CkgSourceName' },
    { label: 'CkgSyncStatus' },
    { label: 'CkgTrigger' },
    { label: 'Workflow ID' },
    { label: 'Start' },
    { label: 'End' },
  ],
};

async function shoot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(800);
  await page.screenshot({ path: join(out, `${name}.png`) });
  console.log(`[screenshots] ${name}.png`);
}

async function main(): Promise<void> {
  mkdirSync(out, { recursive: true });
  const repos = mkdtempSync(join(tmpdir(), 'ckg-operator-shots-'));
  const connection = await Connection.connect({ address: temporalAddress });
  const client = new Client({ connection, namespace });
  const sources: Source[] = [];
  try {
    for (const [name, pkg] of Object.entries(PACKAGES)) {
      const url = goPackageRepo(repos, pkg);
      sources.push(
        await request<Source>('POST', `${graphUrl}/api/sources`, { source_type: 'git', owner: OWNER, name, url }),
      );
    }
    const vanished = await request<Source>('POST', `${graphUrl}/api/sources`, {
      source_type: 'git',
      owner: OWNER,
      name: 'vanished',
      url: join(repos, 'vanished'),
    });
    sources.push(vanished);
    const [crypto, net, json] = sources as [Source, Source, Source, Source];

    // Finished syncs: three completed (one started by the schedule), one failed.
    await embeddingLatency(0);
    const first = await Promise.all([startSync(crypto, 'alice'), startSync(net, 'alice'), startSync(vanished, 'bob')]);
    for (const r of first) console.log(`[screenshots] sync ${r.id}: ${(await untilEnded(r.id)).status}`);
    const schedule = await request<{ id: string }>('POST', `${ingestionUrl}/api/schedules`, {
      source_id: json.id,
      interval_minutes: 60,
    });
    const scheduleId = (
      await request<{ temporal: { schedule_id: string } }>('GET', `${ingestionUrl}/ingest/schedules/${schedule.id}`)
    ).temporal.schedule_id;
    await client.schedule.getHandle(scheduleId).trigger();
    const scheduled = await (async () => {
      for (let i = 0; i < 120; i++) {
        const { items } = await request<{ items: Run[] }>('GET', `${graphUrl}/api/syncs?source_id=${json.id}`);
        if (items[0]) return items[0];
        await sleep(500);
      }
      throw new Error('the triggered schedule started no sync');
    })();
    console.log(`[screenshots] scheduled sync ${scheduled.id}: ${(await untilEnded(scheduled.id)).status}`);

    // A cancelled run of golang/net (what the `retry` signal takes), then a run kept in its embedding phase.
    await embeddingLatency(5000);
    const cancelled = await startSync(net, 'carol');
    for (;;) {
      const run = await runOf(cancelled.id);
      if (run.status === 'running') break;
      await sleep(200);
    }
    await call('POST', `${ingestionUrl}/api/syncs/${cancelled.id}/cancel`, { reason: 'wrong branch, asked by carol' });
    await untilEnded(cancelled.id);
    const running = await startSync(net, 'dave');
    const handle = client.workflow.getHandle(net.id);
    for (let i = 0; ; i++) {
      const p: SyncProgress = await handle.query(progressQuery).catch(() => ({ phase: 'pending' }) as SyncProgress);
      if (p.phase === 'embedding_summaries' && p.syncId === running.id) break;
      if (i > 1200) throw new Error(`sync ${running.id} did not reach embedding_summaries`);
      await sleep(250);
    }
    const runningRunId = (await handle.describe()).runId;
    const cryptoRunId = (await client.workflow.getHandle(crypto.id).describe()).runId;

    const browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      // Runs in the page (this file is typed without the DOM library).
      await context.addInitScript((columns) => {
        const page = globalThis as unknown as { localStorage: { setItem(key: string, value: string): void } };
        page.localStorage.setItem('namespace-workflow-table-columns', columns);
      }, JSON.stringify(LIST_COLUMNS));
      const page = await context.newPage();
      page.setDefaultTimeout(90_000);
      const ui = `${uiUrl}/namespaces/${namespace}`;

      const runningPage = `${ui}/workflows/${net.id}/${runningRunId}`;
      await page.goto(`${runningPage}/query`);
      await page.getByRole('button', { name: 'Run Query' }).click();
      await page
        .getByText(/embedding_/)
        .first()
        .waitFor({ timeout: 60_000 });
      await shoot(page, 'progress-query');

      await page.goto(`${runningPage}/history`);
      await page.getByRole('button', { name: 'More Actions' }).click();
      // The page holds a second, hidden copy of the actions menu.
      await page.getByText('Send a Signal', { exact: true }).filter({ visible: true }).first().click();
      await page.locator('dialog[open]').waitFor();
      await fillSignal(page, 'retry', JSON.stringify({ syncId: cancelled.id }, null, 2));
      await shoot(page, 'send-signal-retry');
      await page.keyboard.press('Escape');

      const query = `CkgSourceOwner = '${OWNER}'`;
      await page.goto(`${ui}/workflows?query=${encodeURIComponent(query)}`);
      await page.getByText(`${OWNER}/vanished`).first().waitFor({ timeout: 60_000 });
      await shoot(page, 'workflow-list');

      const cryptoPage = `${ui}/workflows/${crypto.id}/${cryptoRunId}`;
      await page.goto(`${cryptoPage}/timeline`);
      await page.getByText('finalizeSync').first().waitFor({ timeout: 60_000 });
      await page.getByText('Timeline', { exact: true }).last().scrollIntoViewIfNeeded();
      await shoot(page, 'sync-timeline');
      await page.goto(`${cryptoPage}/history`);
      await page.getByText('Compact', { exact: true }).click();
      await page.getByText('parseBatch').first().waitFor({ timeout: 60_000 });
      await page.getByText('Event History', { exact: true }).last().scrollIntoViewIfNeeded();
      await shoot(page, 'sync-history');

      await page.goto(`${ui}/schedules/${scheduleId}`);
      await page.getByText(scheduleId).first().waitFor({ timeout: 60_000 });
      await shoot(page, 'schedule');
    } finally {
      await browser.close();
    }
    await call('POST', `${ingestionUrl}/api/syncs/${running.id}/cancel`, { reason: 'screenshots taken' });
  } finally {
    await embeddingLatency(0).catch(() => undefined);
    for (const s of sources) await call('DELETE', `${graphUrl}/api/sources/${s.id}`).catch(() => undefined);
    await connection.close();
    rmSync(repos, { recursive: true, force: true });
  }
}

/**
 * Picks the signal and types its JSON input in the open Send Signal dialog (not sent). The UI lists the signals the
 * workflow defines (it asks a worker); without a worker it offers a free text field.
 */
async function fillSignal(page: Page, name: string, input: string): Promise<void> {
  const dialog = page.locator('dialog[open]');
  const select = dialog.getByTestId('signal-select-button');
  const listed = await select.waitFor({ timeout: 20_000 }).then(
    () => true,
    () => false,
  );
  if (listed) {
    await select.click();
    await dialog
      .getByRole('option')
      .filter({ hasText: new RegExp(`^\\s*${name}\\s*$`) })
      .click();
  } else {
    await dialog.getByTestId('signal-name').fill(name);
  }
  await dialog.getByRole('textbox', { name: 'Data' }).click();
  await page.keyboard.insertText(input);
}

await main();
