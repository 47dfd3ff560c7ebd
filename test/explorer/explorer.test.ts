// The web explorer in a real browser (headless Chromium from Debian's package, driven by playwright-core) against
// the whole service: sign-in through the identity-provider stand-in (authorization code + PKCE), the synced
// repository's graph, search, a node's detail, neighbours, summary and highlighted file, a sync started from the page
// and followed over the event stream across a dropped connection, the merged view of two syncs with a divergent
// node, token refresh, and no token in any URL but the event stream's nor in any log line.
// CKG_SCREENSHOTS=1 writes the screenshots to docs/explorer-*.png.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import type { Page, Request } from 'playwright-core';
import { addCommit, createRepo, EXPRESSION_TOOLKIT_FILES, type TestRepo } from '../support/git-repos.ts';
import { ensureExplorerBuilt, freePort, launchBrowser, type TestBrowser } from '../support/browser.ts';
import { startService, type Service } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const FILES = EXPRESSION_TOOLKIT_FILES;
const PARSER_V2 =
  "import { tokenizeSource, type Token } from './tokenizer';\n\n" +
  'export class ExpressionParser {\n  parse(text: string): Token[] {\n    return tokenizeSource(text.trim());\n  }\n\n' +
  '  count(text: string): number {\n    return this.parse(text).length;\n  }\n}\n';

const PHASES = ['starting', 'cloning', 'parsing', 'graphing', 'embedding_summaries', 'embedding_chunks', 'finalizing'];
const SCREENSHOTS = process.env.CKG_SCREENSHOTS === '1';
const docs = (name: string) => fileURLToPath(new URL(`../../docs/${name}`, import.meta.url));
/** Access tokens are JWTs: a JSON header, base64url, starts with eyJ. */
const JWT = /eyJ[\w-]+\.[\w-]+\.[\w-]+/g;

describe('the web explorer in headless Chromium', () => {
  let svc: Service;
  let repo: TestRepo;
  let browser: TestBrowser;
  let page: Page;
  let sourceId: string;
  let firstSync: string;
  let liveSync: string;
  const requests: Request[] = [];

  async function apiToken(): Promise<string> {
    const res = await fetch(svc.idp.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'service-gateway',
        client_secret: svc.idp.gatewayClientSecret,
      }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(svc.gateway.url + path, {
      method,
      headers: {
        authorization: `Bearer ${await apiToken()}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${path} → ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  async function completed(syncId: string): Promise<void> {
    await waitFor(
      `sync ${syncId} to complete`,
      async () => {
        const s = await api<{ status: string; error: string | null }>('GET', `/api/syncs/${syncId}`);
        assert.ok(!['failed', 'cancelled'].includes(s.status), `sync ${s.status}: ${s.error}`);
        return s.status === 'completed';
      },
      120_000,
      250,
    );
  }

  const shot = async (name: string) => {
    if (SCREENSHOTS) await page.screenshot({ path: docs(name) });
  };
  // In-page code is written as strings: this file is typed for Node, not for the DOM.
  const STORED_TOKEN = `(() => {
    const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'));
    return key ? JSON.parse(sessionStorage.getItem(key)).access_token : undefined;
  })()`;
  /** Polls an in-page expression until it is truthy (waitForFunction would eval, which the page's CSP forbids). */
  async function pageUntil(expression: string, timeoutMs = 30_000): Promise<void> {
    await waitFor(expression, async () => Boolean(await page.evaluate<unknown>(expression)), timeoutMs, 100);
  }
  const storedToken = () => page.evaluate<string | undefined>(STORED_TOKEN);

  before(async () => {
    await ensureExplorerBuilt();
    repo = createRepo(FILES);
    const port = await freePort();
    svc = await startService({
      gatewayPort: port,
      frontendRedirectUris: [`http://127.0.0.1:${port}/*`],
      // Short-lived tokens: the page must refresh them (60 s before expiry) while the test runs.
      accessTokenTtlSeconds: 64,
    });
    const source = await api<{ id: string }>('POST', '/api/sources', {
      source_type: 'github_repo',
      owner: 'acme',
      name: 'expressions',
      url: repo.dir,
      default_branch: 'main',
    });
    sourceId = source.id;
    firstSync = (await api<{ id: string }>('POST', '/api/syncs', { source_id: sourceId, triggered_by: 'test' })).id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('request', (r) => requests.push(r));
    await completed(firstSync);
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
    repo?.remove();
  });

  it('signs in through the identity provider (authorization code + PKCE) and leaves no code in the address', async () => {
    await page.goto(svc.gateway.url + '/');
    await page.click('#sign-in');
    await page.waitForSelector('#kc-form-login');
    assert.ok(page.url().startsWith(svc.idp.issuer + '/login-actions/'), `the provider's login form: ${page.url()}`);
    await page.fill('input[name=username]', 'alice');
    await page.fill('input[name=password]', 'alice');
    await page.click('#kc-form-login button[type=submit]');
    await page.waitForSelector('#user:text-is("alice")');
    // Back on the page with no code or state left in the address (the page may already name the source it picked).
    const back = new URL(page.url());
    assert.equal(back.origin + back.pathname, svc.gateway.url + '/');
    for (const p of ['code', 'state', 'session_state', 'iss']) assert.equal(back.searchParams.get(p), null, p);
    assert.equal(back.hash, '');
    const auth = requests.find((r) => r.url().startsWith(svc.idp.authorizationUrl));
    assert.ok(auth, 'the authorization request');
    const q = new URL(auth.url()).searchParams;
    assert.equal(q.get('client_id'), 'service-frontend');
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.match(q.get('code_challenge') ?? '', /^[\w-]{43}$/);
  });

  it('renders the synced repository: every file a node, every import an edge', async () => {
    await page.waitForSelector(`#graph-status[data-syncs="${firstSync}"]`);
    assert.equal(await page.getAttribute('#graph-status', 'data-nodes'), '6');
    assert.match((await page.textContent('#graph-status')) ?? '', /^6 files · 4 dependencies · 1 sync$/);
    assert.ok((await page.locator('#graph canvas').count()) >= 1, 'Cytoscape drew on canvas');
    const measures = await page.evaluate(() => performance.getEntriesByType('measure').map((m) => m.name));
    assert.ok(measures.includes('graph-render'), 'the first frame was drawn');
    await shot('explorer-graph.png');
  });

  it('searches files, opens one, walks to a neighbour, shows its highlighted file and generates its summary', async () => {
    await page.fill('#search', 'tokenize source text');
    await page.press('#search', 'Enter');
    const hit = page.locator('.search-kind[data-kind=files] .hit', { hasText: 'tokenizer.ts' });
    await hit.first().click();
    assert.equal(await page.locator('#search-results .error').count(), 0, 'no search kind failed');
    await page.waitForSelector('#detail-name:text-is("tokenizer.ts")');
    const usedBy = await page.locator('.neighbours.in button').allTextContents();
    assert.deepEqual(usedBy.map((t) => t.replace(/ ×\d+$/, '')).sort(), ['index.ts', 'parser.ts']);
    assert.equal(await page.locator('.neighbours.out button').count(), 0, 'tokenizer.ts imports nothing');

    await page.locator('.neighbours.in button', { hasText: 'parser.ts' }).click();
    await page.waitForSelector('#detail-name:text-is("parser.ts")');
    const dependsOn = await page.locator('.neighbours.out button').allTextContents();
    assert.deepEqual(
      dependsOn.map((t) => t.replace(/ ×\d+$/, '')),
      ['tokenizer.ts'],
    );
    const lines = FILES['src/parser.ts']!.trimEnd().split('\n').length;
    await page.waitForSelector(`.file-view[data-lines="${lines}"]`);
    assert.equal((await page.textContent('.file-view .gutter'))!.split('\n').at(-1), String(lines));
    assert.equal((await page.textContent('.file-view code'))?.trimEnd(), FILES['src/parser.ts']!.trimEnd());
    assert.ok((await page.locator('.file-view .hljs-keyword').count()) >= 3, 'highlighted as TypeScript');

    await page.click('#generate-summary');
    await page.waitForSelector('.summary-text[data-source=llm]');
    assert.match((await page.textContent('.summary-text')) ?? '', /^\[stand-in model\] .*parser\.ts/);
    await shot('explorer-node.png');
  });

  it('finds a symbol, opens its detail, walks its callers and callees, and opens its file at its line', async () => {
    await page.fill('#search', 'tokenizeSource');
    await page.press('#search', 'Enter');
    const hit = page.locator('.search-kind[data-kind=symbols] .hit', { hasText: 'tokenizeSource' }).first();
    await hit.waitFor();
    assert.match((await hit.textContent()) ?? '', /function/);
    assert.equal(await page.locator('#search-results .error').count(), 0, 'no search kind failed');
    assert.ok((await page.locator('.search-kind[data-kind=chunks] .hit').count()) >= 1, 'chunk hits');
    await hit.click();
    // The symbol's own view: definition and callers, resolved through the imports of the real sync.
    await page.waitForSelector('#detail-name:text-is("tokenizeSource")');
    const callers = page.locator('[data-relation=callers] .symbol-link');
    await callers.first().waitFor();
    assert.deepEqual((await callers.allTextContents()).sort(), ['ExpressionParser.parse:method', 'run:function']);
    assert.equal(await page.textContent('[data-relation=callers] .completeness'), 'exact');
    // Walk to a caller, then back along its callees.
    await page.locator('[data-relation=callers] .symbol-link', { hasText: 'ExpressionParser.parse' }).click();
    await page.waitForSelector('#detail-name:text-is("parse")');
    await page.locator('[data-relation=callees] .symbol-link', { hasText: 'tokenizeSource' }).click();
    await page.waitForSelector('#detail-name:text-is("tokenizeSource")');
    // Its file opens at its line.
    await page.click('#symbol-file');
    await page.waitForSelector('#detail-name:text-is("tokenizer.ts")');
    const line = FILES['src/tokenizer.ts']!.split('\n').findIndex((l) => l.includes('function tokenizeSource')) + 1;
    await page.waitForSelector(`.file-view .line-mark:text-is("${line}")`);
    // A file's detail lists its symbols; one opens its view.
    await page.locator('.neighbours.other .symbol-link', { hasText: 'tokenizeSource' }).click();
    await page.waitForSelector('#detail-name:text-is("tokenizeSource")');
  });

  it('searches the selected source by default (all on request): a file name lists that file first, labelled', async () => {
    const searches = () =>
      requests.map((r) => new URL(r.url())).filter((u) => u.pathname.startsWith('/api/graph/search'));
    const before = searches().length;
    await page.fill('#search', 'tokenizer.ts');
    await page.press('#search', 'Enter');
    const first = page.locator('#search-results .search-kind').first();
    await first.locator('.hit').first().waitFor();
    assert.equal(await first.getAttribute('data-kind'), 'files');
    assert.match((await first.locator('.hit').first().textContent()) ?? '', /tokenizer\.ts/);
    assert.equal(await first.locator('.hit .hit-repo').first().textContent(), 'acme/expressions');
    const scoped = searches().slice(before);
    assert.equal(scoped.length, 3);
    for (const u of scoped) assert.equal(u.searchParams.get('source_id'), sourceId, u.pathname);
    const mark = searches().length;
    await page.check('#search-all');
    await pageUntil(`document.querySelectorAll('#search-results .search-kind').length === 3`);
    await waitFor('the searches of every source', () => searches().length >= mark + 3, 30_000);
    for (const u of searches().slice(mark)) assert.equal(u.searchParams.get('source_id'), null, u.pathname);
    await page.uncheck('#search-all');
  });

  it('starts a sync from the page, follows its phases over the event stream across a dropped connection, then reloads', async () => {
    addCommit(repo, { 'src/parser.ts': PARSER_V2 }, 'parser: count');
    await page.evaluate(`(() => {
      const live = document.getElementById('live');
      window.seenPhases = [];
      new MutationObserver(() => {
        const p = live.dataset.phase;
        if (p && window.seenPhases.at(-1) !== p) window.seenPhases.push(p);
      }).observe(live, { attributes: true });
    })()`);
    await page.click('#start-sync');
    await pageUntil('window.seenPhases.length > 0');
    const runs = await api<{ items: Array<{ id: string; status: string }> }>('GET', `/api/syncs?source_id=${sourceId}`);
    liveSync = runs.items.find((s) => s.id !== firstSync)!.id;
    // Drop every connection: the page's EventSource must come back and resume after the last event it saw.
    const connectedBefore = svc.logs.filter((l) => l.event === 'sse_client_connected').length;
    svc.gateway.server.closeAllConnections();

    await page.waitForSelector('#live[data-status=completed]', { timeout: 120_000 });
    await page.waitForSelector(`#graph-status[data-syncs="${liveSync}"]`);
    const phases = await page.evaluate<string[]>('window.seenPhases');
    const order = PHASES.filter((p) => phases.includes(p));
    assert.deepEqual(phases, order, `phases shown in pipeline order: ${phases.join(', ')}`);
    assert.ok(phases.includes('parsing') && phases.length >= 3, `phases: ${phases.join(', ')}`);
    const reconnects = svc.logs.filter((l) => l.event === 'sse_client_connected').slice(connectedBefore);
    assert.ok(reconnects.length >= 1, 'the stream reconnected');
    const resumed = reconnects.map((l) => l.resume_after);
    assert.ok(
      resumed.every((v) => typeof v === 'number' && v > 0),
      `every reconnect resumed after an event id: ${JSON.stringify(resumed)}`,
    );
    // The sync is named as people name it: by its time and ref, not its id.
    const liveText = (await page.textContent('#live')) ?? '';
    assert.match(liveText, /^Sync .+ @ main: completed$/);
    assert.ok(!liveText.includes(liveSync.slice(0, 8)), liveText);
  });

  it('merges two syncs: the changed file is divergent', async () => {
    await page.click('#syncs-summary');
    await page.check(`#syncs input[value="${firstSync}"]`);
    const want = [firstSync, liveSync].sort().join(',');
    await pageUntil(
      `document.getElementById('graph-status').dataset.syncs?.split(',').sort().join(',') === ${JSON.stringify(want)}`,
    );
    assert.match((await page.textContent('#graph-status')) ?? '', / · 2 syncs$/);
    await page.click('#syncs-summary');
    await page.fill('#search', 'ExpressionParser count');
    await page.press('#search', 'Enter');
    await page.locator('.search-kind[data-kind=files] .hit', { hasText: 'parser.ts' }).first().click();
    await page.waitForSelector('#detail-name:text-is("parser.ts")');
    assert.match((await page.textContent('.facts')) ?? '', /Divergentyes/);
    await shot('explorer-live.png');

    // The address holds the source, the syncs and the node: a reload (or the link, shared) shows them again.
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('source'), sourceId);
    assert.equal(url.searchParams.get('syncs')?.split(',').sort().join(','), want);
    assert.match(url.searchParams.get('node') ?? '', /:src\/parser\.ts$/);
    await page.reload();
    await pageUntil(
      `document.getElementById('graph-status').dataset.syncs?.split(',').sort().join(',') === ${JSON.stringify(want)}`,
    );
    await page.waitForSelector('#detail-name:text-is("parser.ts")');
  });

  it("refreshes its token before expiry, and no token appears in a URL but the event stream's nor in any log", async () => {
    const first = requests.find((r) => r.url().startsWith(`${svc.gateway.url}/api/`) && r.headers().authorization);
    const initial = first!.headers().authorization!.slice('Bearer '.length);
    await pageUntil(`${STORED_TOKEN} !== ${JSON.stringify(initial)}`);
    const refreshed = await storedToken();
    const res = await page.evaluate(
      async (t) => (await fetch('/api/sources', { headers: { authorization: `Bearer ${t}` } })).status,
      refreshed!,
    );
    assert.equal(res, 200, 'the refreshed token works');

    const tokens = new Set<string>([initial, refreshed!]);
    for (const r of requests) {
      const url = r.url();
      const onStream = url.startsWith(`${svc.gateway.url}/api/events?`);
      if (onStream) for (const t of new URL(url).searchParams.getAll('token')) tokens.add(t);
      else assert.doesNotMatch(url, JWT, `no token in ${url}`);
      if (url.startsWith(`${svc.gateway.url}/api/`) && !onStream) {
        assert.match(r.headers().authorization ?? '', /^Bearer eyJ/, `${url} carries its token in the header`);
      }
    }
    const logText = JSON.stringify(svc.logs);
    for (const t of tokens) assert.ok(!logText.includes(t), 'a token was logged');
    assert.ok(!logText.includes('token='), 'no logged URL holds the token parameter');
  });
});
