/**
 * Server-sent events from a fetch response body: frames split at blank lines (LF or CRLF), `id`, `event` and
 * `data` fields, comments skipped. A stream silent for longer than `idleMs` (the gateway sends a heartbeat comment
 * every 15 s) is treated as lost.
 */
export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

export class StreamIdleError extends Error {
  constructor(ms: number) {
    super(`no data on the event stream for ${ms} ms`);
    this.name = new.target.name;
  }
}

function parseFrame(block: string): SseFrame | undefined {
  const frame: SseFrame = { data: '' };
  const data: string[] = [];
  let any = false;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const c = line.indexOf(':');
    const field = c < 0 ? line : line.slice(0, c);
    const value = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
    if (field === 'id') frame.id = value;
    else if (field === 'event') frame.event = value;
    else if (field === 'data') data.push(value);
    else continue;
    any = true;
  }
  if (!any) return undefined;
  frame.data = data.join('\n');
  return frame;
}

export async function* readSse(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
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
      buf += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, '\n');
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const frame = parseFrame(buf.slice(0, i));
        buf = buf.slice(i + 2);
        if (frame) yield frame;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
