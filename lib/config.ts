/**
 * Environment configuration, validated once at start-up. Each component declares the variables it reads;
 * `loadConfig` returns typed values or throws a ConfigError naming the first bad variable.
 */
import { ConfigError } from './errors.ts';

type Env = Record<string, string | undefined>;

interface BaseSpec<T> {
  /** Used when the variable is unset or empty. Omit to make the variable required. */
  default?: T;
  /** Secrets are never echoed back in error messages. */
  secret?: boolean;
}

export type VarSpec =
  | ({ type: 'string' } & BaseSpec<string>)
  | ({ type: 'url' } & BaseSpec<string>)
  | ({ type: 'int'; min?: number; max?: number } & BaseSpec<number>)
  | ({ type: 'number'; min?: number; max?: number } & BaseSpec<number>)
  | ({ type: 'bool' } & BaseSpec<boolean>)
  | ({ type: 'json-string-list' } & BaseSpec<string[]>)
  | ({ type: 'enum'; values: readonly string[] } & BaseSpec<string>);

type ValueOf<S extends VarSpec> = S extends { type: 'int' | 'number' }
  ? number
  : S extends { type: 'bool' }
    ? boolean
    : S extends { type: 'json-string-list' }
      ? string[]
      : string;

export type ConfigOf<T extends Record<string, VarSpec>> = { readonly [K in keyof T]: ValueOf<T[K]> };

function parseOne(name: string, spec: VarSpec, raw: string): unknown {
  const shown = spec.secret ? '(hidden)' : JSON.stringify(raw);
  switch (spec.type) {
    case 'string':
      return raw;
    case 'url': {
      try {
        const u = new URL(raw);
        if (!/^(https?|postgres(ql)?):$/.test(u.protocol)) throw new Error('protocol');
      } catch {
        throw new ConfigError(name, `must be an http(s) or postgres URL, got ${shown}`);
      }
      return raw;
    }
    case 'int':
    case 'number': {
      const n = Number(raw);
      if (!Number.isFinite(n) || (spec.type === 'int' && !Number.isInteger(n))) {
        throw new ConfigError(name, `must be ${spec.type === 'int' ? 'an integer' : 'a number'}, got ${shown}`);
      }
      if (spec.min !== undefined && n < spec.min) throw new ConfigError(name, `must be >= ${spec.min}, got ${n}`);
      if (spec.max !== undefined && n > spec.max) throw new ConfigError(name, `must be <= ${spec.max}, got ${n}`);
      return n;
    }
    case 'bool': {
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      throw new ConfigError(name, `must be true or false, got ${shown}`);
    }
    case 'json-string-list': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw new ConfigError(name, `must be a JSON list of strings, got ${shown}`);
      }
      if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string')) {
        throw new ConfigError(name, `must be a JSON list of strings, got ${shown}`);
      }
      return parsed;
    }
    case 'enum':
      if (!spec.values.includes(raw))
        throw new ConfigError(name, `must be one of ${spec.values.join(', ')}, got ${shown}`);
      return raw;
  }
}

export function loadConfig<T extends Record<string, VarSpec>>(specs: T, env: Env = process.env): ConfigOf<T> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      if (spec.default === undefined) throw new ConfigError(name, 'is required but not set');
      out[name] = spec.default;
      continue;
    }
    out[name] = parseOne(name, spec, raw);
  }
  return out as ConfigOf<T>;
}

/** Variables shared by every component that talks to the database. */
export const databaseVars = {
  DATABASE_URL: { type: 'url', default: 'postgresql://postgres@127.0.0.1:55432/ckg', secret: true },
  DATABASE_POOL_SIZE: { type: 'int', default: 10, min: 1, max: 200 },
  DATABASE_ACQUIRE_TIMEOUT_SECONDS: { type: 'number', default: 10, min: 0.1, max: 600 },
} as const satisfies Record<string, VarSpec>;

export const embeddingVars = {
  EMBEDDING_DIM: { type: 'int', default: 896, min: 1, max: 16000 },
} as const satisfies Record<string, VarSpec>;
