/**
 * The routing table of the contract (spec part 4), as data. `resolveRoute` answers for a method and a path:
 * the destination, or 405 with the allowed methods (the path exists, the method does not), or 404.
 */
export type Destination =
  'health' | 'events' | 'mcp' | 'openapi' | 'docs' | 'redoc' | 'explorer' | 'graph' | 'ingestion' | 'idp';

export interface Route {
  name: string;
  match: (path: string) => boolean;
  /** Method → destination; '*' stands for any method. */
  methods: Readonly<Record<string, Destination>>;
  /** Whether a valid token is required. */
  auth: boolean;
}

const exact = (p: string) => (path: string) => path === p;
const tree = (p: string) => (path: string) => path === p || path.startsWith(p + '/');
const under = (p: string) => (path: string) => path.startsWith(p + '/');
const oneBelow = (p: string) => (path: string) => path.startsWith(p + '/') && /^[^/]+$/.test(path.slice(p.length + 1));

export const ROUTES: readonly Route[] = [
  { name: 'health', match: exact('/health'), methods: { GET: 'health', HEAD: 'health' }, auth: false },
  { name: 'openapi', match: exact('/openapi.json'), methods: { GET: 'openapi', HEAD: 'openapi' }, auth: false },
  { name: 'docs', match: tree('/docs'), methods: { GET: 'docs', HEAD: 'docs' }, auth: false },
  { name: 'redoc', match: tree('/redoc'), methods: { GET: 'redoc', HEAD: 'redoc' }, auth: false },
  /** The web explorer: its page at `/` and its bundle under `/explorer/` (it signs in by itself, through OIDC). */
  { name: 'explorer', match: exact('/'), methods: { GET: 'explorer', HEAD: 'explorer' }, auth: false },
  { name: 'explorer-assets', match: under('/explorer'), methods: { GET: 'explorer', HEAD: 'explorer' }, auth: false },
  { name: 'events', match: exact('/api/events'), methods: { GET: 'events' }, auth: true },
  // MCP over stateless streamable HTTP: every message is a POST (no server-initiated stream, no session to end).
  { name: 'mcp', match: exact('/mcp'), methods: { POST: 'mcp' }, auth: true },
  { name: 'graph', match: tree('/api/graph'), methods: { GET: 'graph' }, auth: true },
  {
    name: 'sources',
    match: tree('/api/sources'),
    methods: { GET: 'graph', POST: 'graph', PATCH: 'graph', DELETE: 'graph' },
    auth: true,
  },
  {
    name: 'syncs',
    match: tree('/api/syncs'),
    methods: { GET: 'graph', POST: 'ingestion', DELETE: 'ingestion' },
    auth: true,
  },
  {
    name: 'schedules',
    match: exact('/api/schedules'),
    methods: { GET: 'graph', POST: 'ingestion', PATCH: 'ingestion', DELETE: 'ingestion' },
    auth: true,
  },
  {
    name: 'schedule',
    match: oneBelow('/api/schedules'),
    methods: { POST: 'ingestion', PATCH: 'ingestion', DELETE: 'ingestion' },
    auth: true,
  },
  // Code-host webhooks: the host's signature (checked by the ingestion component) is the authentication, so no
  // bearer token; only POST, only the three providers' paths (docs/webhooks.md).
  {
    name: 'webhooks',
    match: (path: string) => /^\/ingest\/webhooks\/[^/]+$/.test(path),
    methods: { POST: 'ingestion' },
    auth: false,
  },
  // /ingest/*: only the operators' reads (docs/security.md). The source teardown (DELETE /ingest/sources/{id}) is the
  // graph component's internal call on source deletion; through the gateway it left rows without Temporal state.
  { name: 'ingest-workflows', match: oneBelow('/ingest/workflows'), methods: { GET: 'ingestion' }, auth: true },
  { name: 'ingest-schedules', match: oneBelow('/ingest/schedules'), methods: { GET: 'ingestion' }, auth: true },
  // /auth/*: the methods an OIDC client uses; which paths, of which realm: gateway/auth-proxy.ts.
  {
    name: 'auth',
    match: under('/auth'),
    methods: { GET: 'idp', HEAD: 'idp', POST: 'idp', OPTIONS: 'idp' },
    auth: false,
  },
];

export type Resolution =
  | { kind: 'route'; route: Route; destination: Destination }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

export function resolveRoute(method: string, path: string): Resolution {
  for (const route of ROUTES) {
    if (!route.match(path)) continue;
    const destination = route.methods[method] ?? route.methods['*'];
    if (destination) return { kind: 'route', route, destination };
    return { kind: 'method_not_allowed', allow: Object.keys(route.methods) };
  }
  return { kind: 'not_found' };
}

/** A path with `.` or `..` segments (also percent-encoded) could be read differently upstream: refused. */
export function hasDotSegment(path: string): boolean {
  return path.split('/').some((seg) => /^(\.|%2e){1,2}$/i.test(seg));
}
