/**
 * The interactive API reference: Swagger UI at /docs and ReDoc at /redoc, both reading /openapi.json. Every asset
 * comes from the installed npm packages (swagger-ui-dist, redoc's standalone bundle) and is served from memory;
 * nothing is fetched from a CDN. Only a fixed list of files is served (no path from the request reaches the disk).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export interface Asset {
  type: string;
  body: Buffer | string;
}

const SWAGGER_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'oauth2-redirect.html': 'text/html; charset=utf-8',
  'oauth2-redirect.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const escapeJs = (s: string) => JSON.stringify(s).replace(/</g, '\\u003c');

const SWAGGER_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8"><title>API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

function swaggerInit(oidcClientId: string): string {
  return `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  oauth2RedirectUrl: window.location.origin + '/docs/oauth2-redirect.html',
});
window.ui.initOAuth({ clientId: ${escapeJs(oidcClientId)}, usePkceWithAuthorizationCodeGrant: true });
`;
}

const REDOC_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>API reference</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<redoc spec-url="/openapi.json"></redoc>
<script src="/redoc/redoc.standalone.js"></script>
</body>
</html>
`;

export interface DocsUi {
  /** The asset for a /docs or /redoc path, or undefined (404). */
  asset(path: string): Asset | undefined;
}

export function createDocsUi(options: { oidcClientId: string }): DocsUi {
  const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const redocBundle = join(dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');
  const cache = new Map<string, Asset>();
  const load = (key: string, make: () => Asset): Asset => {
    let a = cache.get(key);
    if (!a) cache.set(key, (a = make()));
    return a;
  };
  return {
    asset(path) {
      if (path === '/docs' || path === '/docs/')
        return load('docs', () => ({ type: 'text/html; charset=utf-8', body: SWAGGER_PAGE }));
      if (path === '/docs/init.js')
        return load('init', () => ({
          type: 'text/javascript; charset=utf-8',
          body: swaggerInit(options.oidcClientId),
        }));
      if (path.startsWith('/docs/')) {
        const name = path.slice('/docs/'.length);
        const type = Object.hasOwn(SWAGGER_FILES, name) ? SWAGGER_FILES[name] : undefined;
        if (!type) return undefined;
        return load(path, () => ({ type, body: readFileSync(join(swaggerDir, name)) }));
      }
      if (path === '/redoc' || path === '/redoc/')
        return load('redoc', () => ({ type: 'text/html; charset=utf-8', body: REDOC_PAGE }));
      if (path === '/redoc/redoc.standalone.js')
        return load(path, () => ({ type: 'text/javascript; charset=utf-8', body: readFileSync(redocBundle) }));
      return undefined;
    },
  };
}
