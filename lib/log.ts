/**
 * Structured JSON logging: one line per event on stdout, `{ ts, level, component, event, ...fields }`.
 * `event` is a stable name (gateway_started, auth_failed, sync_started, ...) that operators grep and alert on.
 * A line written while a request is handled carries its `request_id` (lib/request-id.ts).
 * Keys that look like secrets are redacted wherever they appear.
 */
import { currentRequestId } from './request-id.ts';

export type Level = 'debug' | 'info' | 'warning' | 'error';

const ORDER: Record<Level, number> = { debug: 10, info: 20, warning: 30, error: 40 };
// Field names that hold secrets: a name ending in token, secret, password, authorization, api key or cookie
// (access_token, client_secret, LLM_API_KEY...), but not counts or URLs about them (prompt_tokens, token_url).
const SECRET_KEY = /(^|[_-])(token|secret|password|passwd|authorization|api[_-]?key|cookie|credentials?)$/i;

export type Fields = Record<string, unknown>;

export interface Logger {
  debug(event: string, fields?: Fields): void;
  info(event: string, fields?: Fields): void;
  warning(event: string, fields?: Fields): void;
  error(event: string, fields?: Fields): void;
  child(fields: Fields): Logger;
}

export interface LoggerOptions {
  level?: Level;
  /** Where lines go; stdout by default. */
  write?: (line: string) => void;
}

function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    return {
      name: value.name,
      message: value.message,
      ...('code' in value ? { code: (value as { code: unknown }).code } : {}),
    };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) && v !== null && v !== undefined && v !== '' ? '[redacted]' : redact(v, depth + 1);
  }
  return out;
}

export function parseLevel(value: string | undefined): Level {
  const v = (value ?? 'info').toLowerCase();
  if (v === 'warn') return 'warning';
  return v in ORDER ? (v as Level) : 'info';
}

export function createLogger(component: string, options: LoggerOptions = {}, base: Fields = {}): Logger {
  const min = ORDER[options.level ?? parseLevel(process.env.LOG_LEVEL)];
  const write = options.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const emit = (level: Level, event: string, fields?: Fields) => {
    if (ORDER[level] < min) return;
    const requestId = currentRequestId();
    const record = redact({
      ts: new Date().toISOString(),
      level,
      component,
      event,
      ...(requestId !== undefined ? { request_id: requestId } : {}),
      ...base,
      ...fields,
    });
    write(JSON.stringify(record));
  };
  return {
    debug: (e, f) => emit('debug', e, f),
    info: (e, f) => emit('info', e, f),
    warning: (e, f) => emit('warning', e, f),
    error: (e, f) => emit('error', e, f),
    child: (fields) => createLogger(component, options, { ...base, ...fields }),
  };
}
