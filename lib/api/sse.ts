/**
 * Server-sent events, parsed by eventsource-parser (the WHATWG rules: LF, CR or CRLF lines, `id`, `event`, `data`,
 * `retry`, comments), for the clients of GET /api/events: the CLI's live follow (`readSse` over a fetch body) and
 * the tests' and benchmarks' stream readers (`sseParser` fed chunk by chunk).
 */
import { createParser } from 'eventsource-parser';

export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

/** What a stream carries besides events: a comment (the gateway's heartbeat) or a retry hint. */
export interface SseHandlers {
  event(frame: SseFrame): void;
  comment?(text: string): void;
  retry?(ms: number): void;
}

/** A parser to feed text chunks to; it calls `on` for each complete frame. */
export function sseParser(on: SseHandlers): { feed(chunk: string): void } {
  const parser = createParser({
    onEvent: (m) => {
      const frame: SseFrame = { data: m.data };
      if (m.id !== undefined) frame.id = m.id;
      if (m.event !== undefined) frame.event = m.event;
      on.event(frame);
    },
    onComment: (c) => on.comment?.(c.trim()),
    onRetry: (ms) => on.retry?.(ms),
  });
  return { feed: (chunk) => parser.feed(chunk) };
}

export class StreamIdleError extends Error {
  constructor(ms: number) {
    super(`no data on the event stream for ${ms} ms`);
    this.name = new.target.name;
  }
}

/**
 * The events of a fetch response body. A stream silent for longer than `idleMs` (the gateway sends a heartbeat
 * comment every 15 s) is treated as lost: StreamIdleError.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const ready: SseFrame[] = [];
  const parser = sseParser({ event: (f) => ready.push(f) });
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StreamIdleError(idleMs)), idleMs);
      });
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await Promise.race([reader.read(), idle]);
      } finally {
        clearTimeout(timer);
      }
      if (chunk.done) return;
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      while (ready.length > 0) yield ready.shift()!;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
