/**
 * Exit codes scripts can rely on (docs/cli.md), and the one place an error becomes a message and a code. Messages
 * name the cause: the service's error code and message, the parameter at fault, the address that did not answer.
 */
import { ApiError } from '../lib/api/client.ts';

export const EXIT = {
  OK: 0,
  /** An unexpected error (a bug, or an answer the CLI did not understand). */
  INTERNAL: 1,
  /** Bad usage: unknown command or option, a bad argument, or the service refused a parameter (400). */
  USAGE: 2,
  /** Not logged in, login failed, or the token was refused (401). */
  AUTH: 3,
  /** The thing asked for does not exist (404). */
  NOT_FOUND: 4,
  /** Conflict with the current state (409): e.g. the source already has an active sync. */
  CONFLICT: 5,
  /** The service could not be reached or failed (5xx, timeout). */
  UNAVAILABLE: 6,
  /** A followed sync ended failed, cancelled or cleaned. */
  SYNC_FAILED: 7,
} as const;

/** An error the CLI raises itself, with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export function exitCodeOf(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof ApiError) {
    if (err.status === 400) return EXIT.USAGE;
    if (err.status === 401) return EXIT.AUTH;
    if (err.status === 404) return EXIT.NOT_FOUND;
    if (err.status === 409) return EXIT.CONFLICT;
    if (err.status >= 500) return EXIT.UNAVAILABLE;
  }
  return EXIT.INTERNAL;
}

export function messageOf(err: unknown): string {
  if (err instanceof ApiError) {
    const field = err.field && !err.message.startsWith(`${err.field}:`) ? ` [${err.field}]` : '';
    const hint = err.status === 401 ? ' (log in again: ckg login)' : '';
    const active =
      typeof err.details?.active_sync_id === 'string' ? ` (active sync ${err.details.active_sync_id})` : '';
    return `${err.code}${field}: ${err.message}${active}${hint}`;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}
