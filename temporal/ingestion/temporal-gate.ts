/**
 * A Temporal-backed write first asks whether Temporal answers at all, so that an unreachable Temporal costs the
 * caller a few seconds, not the ~20 s of the client's connect retries (its retry interceptor retries UNAVAILABLE with
 * backoff up to 10 times; a server that accepts and stalls holds a call until its deadline), and so that nothing is
 * committed for a write that cannot reach Temporal.
 *
 * The probe is one getSystemInfo under a deadline of TEMPORAL_CONNECT_TIMEOUT_MS (default 3 s: a reachable server
 * answers in milliseconds, even on a loaded machine well under a second). Concurrent writes share one probe. A failed
 * probe is remembered for TEMPORAL_DOWN_MEMORY_MS: writes meanwhile answer 503 at once, then the next write probes again.
 * Every 503 says Retry-After.
 */
import { isGrpcServiceError, type Client } from '@temporalio/client';
import { UpstreamError } from '../../lib/errors.ts';
import type { IngestionDeps } from './deps.ts';

export const DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS = 3000;
/** After a failed probe, writes answer 503 without probing for this long. */
export const TEMPORAL_DOWN_MEMORY_MS = 2000;
export const TEMPORAL_RETRY_AFTER_SECONDS = 5;

/** gRPC status codes that mean "not reachable" (the others are answers of a reachable server). */
const UNREACHABLE = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */]);

export function temporalUnavailable(cause?: unknown, what = 'nothing was changed'): UpstreamError {
  return new UpstreamError('UPSTREAM_UNAVAILABLE', `the workflow service is unavailable; ${what}`, {
    cause,
    retryAfterSeconds: TEMPORAL_RETRY_AFTER_SECONDS,
  });
}

class TemporalGate {
  private downUntil = 0;
  private lastError: unknown;
  private probing: Promise<void> | undefined;

  constructor(
    private readonly client: Client,
    private readonly timeoutMs: number,
    private readonly now: () => number,
  ) {}

  async check(): Promise<void> {
    if (this.now() < this.downUntil) throw temporalUnavailable(this.lastError);
    this.probing ??= this.probe().finally(() => {
      this.probing = undefined;
    });
    await this.probing;
  }

  private async probe(): Promise<void> {
    const { connection, workflowService } = this.client;
    try {
      await connection.withDeadline(Date.now() + this.timeoutMs, () => workflowService.getSystemInfo({}));
    } catch (err) {
      if (isGrpcServiceError(err) && !UNREACHABLE.has(err.code)) return;
      this.lastError = err;
      this.downUntil = this.now() + TEMPORAL_DOWN_MEMORY_MS;
      throw temporalUnavailable(err);
    }
  }
}

const gates = new WeakMap<Client, TemporalGate>();

/** Throws 503 UPSTREAM_UNAVAILABLE (Retry-After) when Temporal does not answer within the connect timeout. */
export async function requireTemporal(deps: IngestionDeps): Promise<void> {
  let gate = gates.get(deps.temporal);
  if (!gate) {
    gate = new TemporalGate(
      deps.temporal,
      deps.settings.temporalConnectTimeoutMs ?? DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS,
      deps.now ?? Date.now,
    );
    gates.set(deps.temporal, gate);
  }
  await gate.check();
}
