/**
 * docker-compose.yml read the way `docker compose` reads it, for running its services without a container engine:
 * YAML with merge keys, then variable interpolation of every string (`$$`, `$VAR`, `${VAR}`, `${VAR:-default}`,
 * `${VAR-default}`, `${VAR:?message}`, `${VAR?message}`, defaults nested), with the operator's variables only.
 *
 * `localize` is the one rewriting a native run makes, and it is mechanical (docs/deployment.md):
 * 1. `<service>:<container port>` anywhere in a value (URLs, host:port) → `127.0.0.1:<local port>`, one local port
 *    per service and container port (its `expose` and `ports`);
 * 2. `localhost:<published port>` (a `ports: 'H:C'` mapping, the address users outside reach) → `localhost:<local
 *    port of C>`;
 * 3. a value that is exactly one of the service's own container ports (APP_PORT: 8082) → its local port, also in a
 *    `--flag=<port>` command argument;
 * 4. a path at or under a volume's mount point → the same path under that volume's local folder;
 * 5. the `postgres` service's `ckg` database → a fresh database of this run on the test's PostgreSQL server (the
 *    service is a whole server; the components use that one database of it).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface ComposeService {
  image?: string;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string | number | boolean | null>;
  ports?: string[];
  expose?: Array<string | number>;
  volumes?: string[];
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string; interval?: string; retries?: number };
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Interpolates one string as compose does; throws naming the variable of a `:?`/`?` whose variable is missing. */
export function interpolate(text: string, vars: Record<string, string | undefined>): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c !== '$') {
      out += c;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (next !== '{') {
      const m = NAME.exec(text.slice(i + 1));
      if (!m) {
        out += '$';
        i++;
        continue;
      }
      out += vars[m[0]] ?? '';
      i += 1 + m[0].length;
      continue;
    }
    // ${...}: find the matching brace (defaults may hold ${...} of their own).
    let depth = 0;
    let j = i + 1;
    for (; j < text.length; j++) {
      if (text[j] === '{') depth++;
      else if (text[j] === '}' && --depth === 0) break;
    }
    if (j >= text.length) throw new Error(`unterminated \${ in ${JSON.stringify(text)}`);
    const inner = text.slice(i + 2, j);
    const m = NAME.exec(inner);
    if (!m) throw new Error(`bad variable reference \${${inner}}`);
    const name = m[0];
    const rest = inner.slice(name.length);
    const value = vars[name];
    const unset = value === undefined;
    const empty = unset || value === '';
    let replaced: string;
    if (rest === '') replaced = value ?? '';
    else if (rest.startsWith(':-')) replaced = empty ? interpolate(rest.slice(2), vars) : value;
    else if (rest.startsWith('-')) replaced = unset ? interpolate(rest.slice(1), vars) : value;
    else if (rest.startsWith(':?') || rest.startsWith('?')) {
      if (rest.startsWith(':?') ? empty : unset) {
        throw new Error(`${name}: ${interpolate(rest.slice(rest.startsWith(':?') ? 2 : 1), vars)}`);
      }
      replaced = value!;
    } else throw new Error(`unsupported interpolation \${${inner}}`);
    out += replaced;
    i = j + 1;
  }
  return out;
}

function interpolateAll(value: unknown, vars: Record<string, string | undefined>): unknown {
  if (typeof value === 'string') return interpolate(value, vars);
  if (Array.isArray(value)) return value.map((v) => interpolateAll(v, vars));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateAll(v, vars)]));
  }
  return value;
}

/** The compose file after YAML merge keys and interpolation with `vars` (the operator's environment). */
export function loadCompose(path: string, vars: Record<string, string | undefined>): ComposeFile {
  const raw = parse(readFileSync(path, 'utf8'), { merge: true }) as unknown;
  const file = interpolateAll(raw, vars) as ComposeFile;
  for (const s of Object.values(file.services)) {
    // `environment` may be a list of KEY=VALUE.
    if (Array.isArray(s.environment)) {
      s.environment = Object.fromEntries(
        (s.environment as string[]).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
      );
    }
  }
  return file;
}

/** Services of the default set plus those of the given profiles. */
export function activeServices(file: ComposeFile, profiles: string[]): string[] {
  return Object.entries(file.services)
    .filter(([, s]) => !s.profiles || s.profiles.some((p) => profiles.includes(p)))
    .map(([name]) => name);
}

/** A service's container ports: its `expose` and the container side of its `ports`. */
export function containerPorts(s: ComposeService): number[] {
  const out = new Set<number>();
  for (const e of s.expose ?? []) out.add(Number(e));
  for (const p of s.ports ?? []) out.add(Number(p.split(':').at(-1)));
  return [...out];
}

/** `ports: 'H:C'` → [H, C]. */
export function publishedPorts(s: ComposeService): Array<[number, number]> {
  return (s.ports ?? []).map((p) => {
    const parts = p.split(':');
    return [Number(parts.at(-2)), Number(parts.at(-1))];
  });
}

export interface LocalMap {
  /** `service:containerPort` → local port. */
  ports: Map<string, number>;
  /** published host port → local port. */
  published: Map<number, number>;
  /** volume name → local folder. */
  volumes: Map<string, string>;
  /** The fresh database standing for the postgres service's `ckg`. */
  database: string;
}

/** Rules 1, 2, 4, 5 on one value (rule 3 needs the service: `localizeEnv`). */
export function localize(value: string, map: LocalMap, mounts: Array<[string, string]> = []): string {
  let v = value.replace(/\b(postgres:5432)\/ckg\b/g, `$1/${map.database}`);
  v = v.replace(/\b([a-z][a-z0-9-]*):(\d+)\b/g, (whole, host: string, port: string) => {
    if (host === 'localhost') {
      const local = map.published.get(Number(port));
      return local === undefined ? whole : `localhost:${local}`;
    }
    const local = map.ports.get(`${host}:${port}`);
    return local === undefined ? whole : `127.0.0.1:${local}`;
  });
  for (const [containerPath, localPath] of mounts) {
    if (v === containerPath || v.startsWith(containerPath + '/')) v = localPath + v.slice(containerPath.length);
  }
  return v;
}

/** A service's named-volume mounts as [container path, local folder]. */
export function mountsOf(s: ComposeService, map: LocalMap): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const v of s.volumes ?? []) {
    const [source, target] = v.split(':');
    const local = map.volumes.get(source!);
    if (local !== undefined && target !== undefined) out.push([target, local]);
  }
  return out;
}

/** The service's environment with every rule applied (rule 3: its own container ports). */
export function localizeEnv(name: string, s: ComposeService, map: LocalMap): Record<string, string> {
  const own = new Set(containerPorts(s).map(String));
  const mounts = mountsOf(s, map);
  const out: Record<string, string> = {};
  for (const [k, raw] of Object.entries(s.environment ?? {})) {
    const v = raw === null ? '' : String(raw);
    out[k] = own.has(v) ? String(map.ports.get(`${name}:${v}`)) : localize(v, map, mounts);
  }
  return out;
}

/** A command argument with the rules applied (rule 3 for `--flag=<own port>`). */
export function localizeArg(name: string, s: ComposeService, arg: string, map: LocalMap): string {
  const m = /^(--[a-z-]+=)(\d+)$/.exec(arg);
  if (m && containerPorts(s).includes(Number(m[2]))) return `${m[1]}${map.ports.get(`${name}:${m[2]}`)}`;
  return localize(arg, map, mountsOf(s, map));
}

/** `ENV K=V` lines of a Dockerfile (the image's environment, under the compose file's). */
export function dockerfileEnv(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^ENV\s+(.*)$/.exec(line.trim());
    if (!m) continue;
    for (const pair of m[1]!.split(/\s+/)) {
      const eq = pair.indexOf('=');
      if (eq > 0) out[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return out;
}

/** Compose's durations (`5s`, `1m30s`, `500ms`) in milliseconds. */
export function durationMs(text: string | undefined, fallback: number): number {
  if (!text) return fallback;
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
    ms += Number(n) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as Record<string, number>)[unit!]!;
  }
  return ms;
}
