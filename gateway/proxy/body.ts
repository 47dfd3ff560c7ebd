/**
 * The request body, read whole before anything upstream is taken (docs/security.md, "Half-sent bodies"). A client
 * that announces a body and sends it slowly, or never, used to hold one of the gateway's upstream connections for
 * as long as Node let it (300 s): ~100 such requests took all of them and every other request waited. Now the body
 * must arrive within `timeoutMs` of the request (408, and the connection is closed), at most `maxBytes` (413), and
 * only then is an upstream connection (or an MCP slot) taken, for a request that is ready to go.
 *
 * Bodies of this API are small (JSON of at most 1 MB at the components; webhook deliveries at most 5 MB), so holding
 * one in memory costs less than holding a connection for it.
 */
import type Koa from 'koa';
import { ServiceError, type ErrorBody } from '../../lib/errors.ts';

/** A body the gateway will not forward: 408 (not received in time), 413 (too large), 400; names the field `body`. */
export class BodyError extends ServiceError {
  readonly field = 'body';
  constructor(status: 400 | 408 | 413, message: string) {
    super('INVALID_ARGUMENT', status, `body: ${message}`);
  }
  override toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, field: this.field } };
  }
}

export interface BodyLimits {
  timeoutMs: number;
  maxBytes: number;
}

const EMPTY = Buffer.alloc(0);

/** Whether the request announces a body (Content-Length above 0, or a Transfer-Encoding). */
export function hasBody(req: Koa.Context['req']): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function closeAfter(ctx: Koa.Context): void {
  // The rest of the body will not be read: the connection cannot carry another request.
  ctx.set('Connection', 'close');
}

/** Reads the whole body within the limits; resolves with an empty buffer when the request announces none. */
export async function readWholeBody(ctx: Koa.Context, limits: BodyLimits): Promise<Buffer> {
  const req = ctx.req;
  if (!hasBody(req) || req.readableEnded) return EMPTY;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    closeAfter(ctx);
    throw new BodyError(413, `${declared} bytes; at most ${limits.maxBytes} are accepted`);
  }
  const seconds = Math.round(limits.timeoutMs / 100) / 10;
  return new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const done = (err?: Error) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (err) {
        req.pause();
        closeAfter(ctx);
        reject(err);
      } else resolve(Buffer.concat(parts, size));
    };
    const timer = setTimeout(
      () =>
        done(
          new BodyError(
            408,
            `not received within ${seconds} s (${size} of ${Number.isFinite(declared) ? declared : 'the'} bytes arrived)`,
          ),
        ),
      limits.timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) {
        done(new BodyError(413, `more than ${limits.maxBytes} bytes`));
        return;
      }
      parts.push(chunk);
    };
    const onEnd = () => done();
    const onError = (err: Error) => done(new BodyError(400, err.message));
    const onAborted = () => done(new BodyError(400, 'the client went away'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('aborted', onAborted);
  });
}
