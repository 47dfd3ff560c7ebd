/** The page's settings, written by the gateway into `<script id="ckg-config" type="application/json">`. */
export interface ExplorerConfig {
  /** The identity provider's browser-facing issuer (the OIDC authority). */
  authority: string;
  /** The public OIDC client (`service-frontend`). */
  clientId: string;
}

export function readConfig(): ExplorerConfig {
  const el = document.getElementById('ckg-config');
  const parsed = JSON.parse(el?.textContent ?? '{}') as Partial<ExplorerConfig>;
  if (typeof parsed.authority !== 'string' || typeof parsed.clientId !== 'string') {
    throw new Error('the page has no explorer configuration');
  }
  return { authority: parsed.authority, clientId: parsed.clientId };
}
