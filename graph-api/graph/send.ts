/**
 * Content negotiation and sending of a body made of several byte chunks (see split-body.ts). The chunks are
 * written as they are (no concatenation of a large head); Content-Length is their sum; `Vary: Accept-Encoding`
 * tells caches (and the gateway, which forwards bodies and headers unchanged) that the bytes depend on it.
 */
import { Readable } from 'node:stream';
import type Koa from 'koa';
import { ENCODINGS, type BodyEncoding } from './split-body.ts';

/** The client's preferred encoding among br, gzip and identity (q-values honoured); identity when none fits. */
export function negotiateEncoding(ctx: Koa.Context): BodyEncoding {
  const chosen = ctx.acceptsEncodings([...ENCODINGS]);
  return chosen === 'br' || chosen === 'gzip' ? chosen : 'identity';
}

export function sendChunks(ctx: Koa.Context, encoding: BodyEncoding, chunks: readonly Buffer[]): void {
  ctx.vary('Accept-Encoding');
  ctx.type = 'application/json';
  if (encoding !== 'identity') ctx.set('Content-Encoding', encoding);
  ctx.body = Readable.from(chunks, { objectMode: false });
  ctx.length = chunks.reduce((n, c) => n + c.length, 0);
}
