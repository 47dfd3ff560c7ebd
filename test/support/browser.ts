/**
 * Headless Chromium for the explorer's browser tests and bench: Debian's `chromium` (installed by
 * `scripts/stack.sh browser`, which scripts/test.sh runs), driven by playwright-core, with a fresh profile each
 * launch. Also makes sure the explorer's bundle is built (scripts/build-web.ts) before a gateway serves it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { buildExplorer, explorerIsFresh } from '../../scripts/build-web.ts';

export const CHROMIUM = process.env.CKG_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1400, height: 860 }): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run bash scripts/stack.sh browser`);
  const userDataDir = mkdtempSync(join(tmpdir(), 'ckg-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Builds web/dist when it is missing or older than its sources (scripts/stack.sh does the same at start). */
export async function ensureExplorerBuilt(): Promise<void> {
  if (!explorerIsFresh()) await buildExplorer();
}

/** A TCP port free right now on 127.0.0.1 (for a gateway whose address must be known before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
