/**
 * One client's side of the event stream: what it was sent, whether it is live, and its write path.
 *
 * A client is either live (the hub's frames are written to it as they come) or catching up (frames are read from
 * the table instead; the hub's in-order frames are ignored, since the table has them). A live client whose unsent
 * output passes `bufferBytes` stops being live (it "lags"); the stream handler lets it drain and catches it up from
 * the table. Memory per client is thus bounded by `bufferBytes` plus one page, and the hub never waits for anyone.
 */
import type { ServerResponse } from 'node:http';
import type { HubClient } from './hub.ts';
import type { EventRecord } from './store.ts';

export type EndReason = 'client_closed' | 'token_expired' | 'slow_client' | 'server_closing';

export class SseConnection implements HubClient {
  live = false;
  /** Frames written (heartbeats not counted). */
  sent = 0;
  /** Highest in-order id written; the resume point of a catch-up. */
  sentMax: number;
  /** Late rows this client already has (sent as late frames, or read during a catch-up). */
  readonly lateSent = new Set<number>();
  /** Late frames offered while not live. */
  readonly #held: { id: number; frame: string }[] = [];
  readonly #heldIds = new Set<number>();
  #heldBytes = 0;
  #ended: EndReason | undefined;

  constructor(
    readonly res: ServerResponse,
    resumeAfter: number | undefined,
    readonly bufferBytes: number,
    private readonly hooks: { onEnd(reason: EndReason): void; onLag(): void },
  ) {
    this.sentMax = resumeAfter ?? 0;
  }

  get ended(): EndReason | undefined {
    return this.#ended;
  }

  deliver(record: EventRecord, frame: string): void {
    if (!this.live || record.id <= this.sentMax) return;
    this.sentMax = record.id;
    this.write(frame);
  }

  /**
   * A late row appears once, when its transaction commits; no connection open at that moment can have seen it
   * except through its own catch-up (tracked in lateSent), so it is sent whatever the resume point was.
   */
  deliverLate(record: EventRecord, frame: string): void {
    if (this.lateSent.has(record.id) || this.#heldIds.has(record.id)) return;
    if (this.live) {
      this.lateSent.add(record.id);
      this.write(frame);
      return;
    }
    this.#held.push({ id: record.id, frame });
    this.#heldIds.add(record.id);
    this.#heldBytes += frame.length;
    if (this.#heldBytes > this.bufferBytes) this.end('slow_client');
  }

  heartbeat(frame: string): void {
    if (this.live) this.write(frame, 0);
  }

  /** Whether a late frame for `id` is held for when the client goes live. */
  holdsLate(id: number): boolean {
    return this.#heldIds.has(id);
  }

  /** Catch-up reached `position` (the hub's): the hub's frames flow from now on; held late frames follow. */
  goLive(position: number): void {
    this.live = true;
    this.sentMax = Math.max(this.sentMax, position);
    for (const h of this.#held.splice(0)) {
      if (this.lateSent.has(h.id)) continue;
      this.lateSent.add(h.id);
      this.write(h.frame);
    }
    this.#heldIds.clear();
    this.#heldBytes = 0;
  }

  /** Writes `frames` frames in one chunk; returns false when the socket asks to wait for 'drain'. */
  write(chunk: string, frames = 1): boolean {
    if (this.#ended) return false;
    const ok = this.res.write(chunk);
    this.sent += frames;
    if (this.live && this.res.writableLength > this.bufferBytes) {
      this.live = false;
      this.hooks.onLag();
    }
    return ok;
  }

  end(reason: EndReason, finalFrame?: string): void {
    if (this.#ended) return;
    this.#ended = reason;
    if (reason === 'slow_client') this.res.destroy();
    else if (finalFrame) this.res.end(finalFrame);
    else this.res.end();
    this.hooks.onEnd(reason);
  }
}
