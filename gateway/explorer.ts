/**
 * The web graph explorer (web/), served as static files: `/` is its page, `/explorer/<file>` its bundle. The
 * bundle is built by scripts/build-web.ts into web/dist (at `scripts/stack.sh up`/`infra`, so `npm test` and a
 * fresh clone have it). The page gets the OIDC authority (the browser-facing issuer) and the public client id
 * written into it, so the same bundle works behind any gateway. Files are read into memory from the folder's own
 * listing (no path from the request reaches the disk) and reloaded when the build's index.html changes.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceError } from '../lib/errors.ts';
import type { Asset } from './docs/ui.ts';

export const EXPLORER_DIST = fileURLToPath(new URL('../web/dist', import.meta.url));
export const ASSET_PREFIX = '/explorer/';

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

export interface ExplorerOptions {
  /** The OIDC authority the browser signs in with: the identity provider's browser-facing issuer. */
  authority: string;
  clientId: string;
  dist?: string;
}

export interface ExplorerAsset extends Asset {
  cacheControl: string;
  headers?: Record<string, string>;
}

export interface Explorer {
  /** The page for `/`, a bundle file for `/explorer/<name>`, else undefined (404). Throws 503 when not built. */
  asset(path: string): ExplorerAsset | undefined;
}

/** JSON inside a <script> element: `<` escaped so no `</script>` can end it early. */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

function contentSecurityPolicy(authority: string): string {
  let idp = '';
  try {
    idp = ` ${new URL(authority).origin}`;
  } catch {
    // not a URL: the page's own origin only
  }
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Cytoscape.js adds one small <style> element for its container.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self'${idp}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    `form-action 'self'${idp}`,
  ].join('; ');
}

export function createExplorer(options: ExplorerOptions): Explorer {
  const dist = options.dist ?? EXPLORER_DIST;
  const indexFile = join(dist, 'index.html');
  const config = scriptJson({ authority: options.authority, clientId: options.clientId });
  const csp = contentSecurityPolicy(options.authority);
  let loaded: { stamp: number; page: ExplorerAsset; files: Map<string, ExplorerAsset> } | undefined;

  const load = () => {
    let stamp: number;
    try {
      stamp = statSync(indexFile).mtimeMs;
    } catch {
      throw new ServiceError(
        'FAILED_PRECONDITION',
        503,
        'the explorer is not built: run node --import tsx scripts/build-web.ts',
        { expose: true },
      );
    }
    if (loaded?.stamp === stamp) return loaded;
    const files = new Map<string, ExplorerAsset>();
    for (const name of readdirSync(dist)) {
      const type = TYPES[extname(name)];
      if (type) {
        files.set(name, {
          type,
          body: readFileSync(join(dist, name)),
          cacheControl: 'public, max-age=31536000, immutable',
        });
      }
    }
    const html = readFileSync(indexFile, 'utf8').replace('{{CONFIG}}', () => config);
    const page: ExplorerAsset = {
      type: 'text/html; charset=utf-8',
      body: html,
      cacheControl: 'no-cache',
      headers: {
        'Content-Security-Policy': csp,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
      },
    };
    loaded = { stamp, page, files };
    return loaded;
  };

  return {
    asset(path) {
      if (path === '/') return load().page;
      if (!path.startsWith(ASSET_PREFIX)) return undefined;
      return load().files.get(path.slice(ASSET_PREFIX.length));
    },
  };
}
