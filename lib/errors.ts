/**
 * One error family for the whole service. Every error carries a stable string `code` that clients switch on,
 * an HTTP `status`, and `expose` (only messages of exposed errors reach a client; 5xx bodies never leak internals).
 */
export const ERROR_CODES = [
  'UNAUTHORIZED',
  'token_expired',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'INVALID_ARGUMENT',
  'FAILED_PRECONDITION',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_DISCONNECTED',
  'UPSTREAM_TIMEOUT',
  'UNAVAILABLE',
  'TIMEOUT',
  'INTERNAL',
  'CONFIG_INVALID',
  'SCHEMA_MISMATCH',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string; details?: Record<string, unknown> };
}

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly expose: boolean;
  readonly details: Record<string, unknown> | undefined;
  /** Seconds after which a retry may succeed; the error middleware sends it as `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    status: number,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown>; expose?: boolean; retryAfterSeconds?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.expose = options?.expose ?? status < 500;
    this.details = options?.details;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  toBody(): ErrorBody {
    if (!this.expose) return { error: { code: this.code, message: 'internal error' } };
    const body: ErrorBody = { error: { code: this.code, message: this.message } };
    if (this.details) body.error.details = this.details;
    return body;
  }
}

/** 400: a parameter or body field is invalid. `field` names it. */
export class InvalidArgumentError extends ServiceError {
  readonly field: string;
  /** What is wrong with it (the message without the field's name). */
  readonly reason: string;
  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super('INVALID_ARGUMENT', 400, `${field}: ${message}`, options);
    this.field = field;
    this.reason = message;
  }
  override toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, field: this.field } };
  }
}

export class UnauthorizedError extends ServiceError {
  constructor(message = 'missing or invalid token', options?: { cause?: unknown }) {
    super('UNAUTHORIZED', 401, message, options);
  }
}

export class TokenExpiredError extends ServiceError {
  constructor(message = 'token expired', options?: { cause?: unknown }) {
    super('token_expired', 401, message, options);
  }
}

export class NotFoundError extends ServiceError {
  constructor(what: string, id?: string) {
    super('NOT_FOUND', 404, id === undefined ? `${what} not found` : `${what} ${id} not found`);
  }
}

export class ConflictError extends ServiceError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('CONFLICT', 409, message, details ? { details } : undefined);
  }
}

/** 409/422-style refusal: the resource exists but its state forbids the operation (e.g. cleaning a running sync). */
export class FailedPreconditionError extends ServiceError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('FAILED_PRECONDITION', 409, message, details ? { details } : undefined);
  }
}

export class UpstreamError extends ServiceError {
  constructor(
    code: 'UPSTREAM_UNAVAILABLE' | 'UPSTREAM_DISCONNECTED' | 'UPSTREAM_TIMEOUT',
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    const status = code === 'UPSTREAM_UNAVAILABLE' ? 503 : code === 'UPSTREAM_DISCONNECTED' ? 502 : 504;
    super(code, status, message, { ...options, expose: true });
  }
}

/** 503: this process is at capacity (a full queue, no free database connection in time); retry after a while. */
export class UnavailableError extends ServiceError {
  constructor(message: string, retryAfterSeconds: number, options?: { cause?: unknown }) {
    super('UNAVAILABLE', 503, message, { ...options, expose: true, retryAfterSeconds });
  }
}

export class TimeoutError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TIMEOUT', 504, message, { ...options, expose: true });
  }
}

/** Start-up refusal: a bad environment variable. The message names the variable. */
export class ConfigError extends ServiceError {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super('CONFIG_INVALID', 500, `${variable}: ${message}`, { expose: false });
    this.variable = variable;
  }
}

export class SchemaMismatchError extends ServiceError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('SCHEMA_MISMATCH', 500, message, { expose: false, ...(details ? { details } : {}) });
  }
}

/**
 * Errors of an unreachable or restarting PostgreSQL (and of a pool that could not hand out a connection in time):
 * refused or reset connections, a connection ended under a query, and SQLSTATE classes 08 (connection exception),
 * 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now) and 53300 (too many connections).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (/^08/.test(code) || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(code))
      return true;
  }
  const message = err instanceof Error ? err.message : '';
  return (
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|the database system is (starting up|shutting down|in recovery mode)/i.test(
      message,
    ) ||
    (err instanceof AggregateError && err.errors.some((e) => isDatabaseUnavailable(e)))
  );
}

/** Seconds a client is told to wait after the database was unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Normalises anything thrown into a ServiceError (unknown errors become INTERNAL, not exposed). */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  if (err instanceof Error && /timeout exceeded when trying to connect/.test(err.message)) {
    return new UnavailableError('no database connection became free in time; retry later', 1, { cause: err });
  }
  if (isDatabaseUnavailable(err)) {
    return new UpstreamError('UPSTREAM_UNAVAILABLE', 'the database is unavailable; retry later', {
      cause: err,
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
    });
  }
  return new ServiceError('INTERNAL', 500, err instanceof Error ? err.message : String(err), {
    cause: err,
    expose: false,
  });
}
