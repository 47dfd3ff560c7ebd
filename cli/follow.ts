/**
 * Following a sync live: the gateway's event stream (GET /api/events), filtered to the sync's sync_progress and
 * sync_lifecycle frames. After every (re)connect the run is read once, so nothing that happened before the stream
 * opened is missed; a lost stream is resumed with Last-Event-ID (the gateway replays what was missed), with a
 * growing pause between attempts. An expired token (401, or the stream's `token_expired` error frame) is renewed
 * for client-credential profiles; a fixed token ends the command with the auth exit code.
 */
import { request, toApiError } from '../lib/api/client.ts';
import type { EventRow, SyncLifecycle, SyncProgress } from '../lib/api/events.ts';
import { getSync } from '../lib/api/routes/syncs.ts';
import type { Sync } from '../lib/api/schemas.ts';
import { CliError, EXIT } from './exit.ts';
import type { ProgressView } from './progress.ts';
import type { Session } from './session.ts';
import { readSse, type SseFrame } from '../lib/api/sse.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export const FINAL = new Set(['completed', 'failed', 'cancelled', 'cleaned']);

export interface FollowOptions {
  /** Silence allowed on the stream before it counts as lost (heartbeats come every 15 s). */
  idleMs?: number;
  /** Consecutive failed connection attempts before giving up. */
  maxAttempts?: number;
}

export async function followSync(
  session: Session,
  syncId: string,
  view: ProgressView,
  opts: FollowOptions = {},
): Promise<Sync> {
  const idleMs = opts.idleMs ?? 45_000;
  const maxAttempts = opts.maxAttempts ?? 8;
  const read = () => request(session.api, getSync, { params: { sync_id: syncId } });
  const show = (s: Sync) =>
    view.update({ status: s.status, phase: s.progress_meta?.phase, done: s.progress_done, total: s.progress_total });
  let lastId: string | undefined;
  let failures = 0;
  let refresh = false;
  for (;;) {
    if (failures > 0) await sleep(Math.min(5000, 250 * 2 ** (failures - 1)));
    let res: Response;
    try {
      const token = await session.token({ refresh });
      refresh = false;
      res = await fetch(`${session.url.replace(/\/+$/, '')}/api/events`, {
        headers: {
          accept: 'text/event-stream',
          authorization: `Bearer ${token}`,
          ...(lastId ? { 'last-event-id': lastId } : {}),
        },
        signal: AbortSignal.timeout(session.timeoutMs),
      });
    } catch (err) {
      if (err instanceof CliError) throw err;
      if (++failures >= maxAttempts) {
        throw new CliError(`the event stream at ${session.url} cannot be reached (${String(err)})`, EXIT.UNAVAILABLE);
      }
      view.message(`event stream unreachable; retrying (${failures}/${maxAttempts - 1})`);
      continue;
    }
    if (!res.ok) {
      const err = toApiError(res.status, await res.text());
      if (res.status === 401 && err.code === 'token_expired' && !refresh) {
        refresh = true;
        continue;
      }
      if (res.status >= 500 && ++failures < maxAttempts) {
        view.message(`event stream answered ${res.status}; retrying (${failures}/${maxAttempts - 1})`);
        continue;
      }
      throw err;
    }
    const current = await read();
    show(current);
    if (FINAL.has(current.status)) {
      await res.body?.cancel();
      return current;
    }
    const reason = await consume(res, syncId, idleMs, view, (id) => (lastId = id));
    if (reason === 'final') return read();
    if (reason === 'purged') throw new CliError(`sync ${syncId} was purged while it was followed`, EXIT.SYNC_FAILED);
    if (reason === 'token_expired') refresh = true;
    failures = 1;
    view.message(`event stream lost (${reason}); resuming after event ${lastId ?? '(none yet)'}`);
  }
}

/** Reads frames until the sync ends or the stream does; answers why it stopped. */
async function consume(
  res: Response,
  syncId: string,
  idleMs: number,
  view: ProgressView,
  seen: (id: string) => void,
): Promise<string> {
  try {
    for await (const f of readSse(res.body!, idleMs)) {
      if (f.id) seen(f.id);
      const stop = apply(f, syncId, view);
      if (stop) return stop;
    }
    return 'closed by the server';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function apply(f: SseFrame, syncId: string, view: ProgressView): string | undefined {
  if (f.event === 'error') {
    const code = (JSON.parse(f.data) as { code?: string }).code;
    return code === 'token_expired' ? 'token_expired' : `error frame ${code ?? ''}`;
  }
  if (f.event !== 'sync_progress' && f.event !== 'sync_lifecycle') return undefined;
  const row = JSON.parse(f.data) as EventRow;
  if (row.sync_id !== syncId) return undefined;
  if (f.event === 'sync_progress') {
    const p = row.payload as SyncProgress;
    view.update({ phase: p.phase, done: p.progress_done ?? 0, total: p.progress_total ?? 0 });
    return undefined;
  }
  const p = row.payload as SyncLifecycle;
  if (p.status === 'purged') return 'purged';
  if (p.status) view.update({ status: p.status });
  return p.status && FINAL.has(p.status) ? 'final' : undefined;
}
