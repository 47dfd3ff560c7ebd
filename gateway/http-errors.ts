/**
 * First in the chain: any thrown error becomes the one error body (docs/decisions.md); logs 4xx at info and 5xx
 * at error. Unlike lib/http.ts's middleware it knows that proxied and streamed responses bypass Koa
 * (ctx.respond = false): those are logged where they are written, and an error after their head was sent can only
 * cut the connection.
 */
import type Koa from 'koa';
import { ServiceError, toServiceError } from '../lib/errors.ts';
import { checkRequestTarget } from '../lib/http.ts';
import type { Logger } from '../lib/log.ts';

export class MethodNotAllowedError extends ServiceError {
  constructor(
    method: string,
    path: string,
    readonly allow: string[],
  ) {
    super('METHOD_NOT_ALLOWED', 405, `${method} is not allowed on ${path}; allowed: ${allow.join(', ')}`);
  }
}

export function gatewayErrors(log: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      checkRequestTarget(ctx.url);
      await next();
    } catch (thrown) {
      const err = toServiceError(thrown);
      const fields = {
        method: ctx.method,
        path: ctx.path,
        status: err.status,
        code: err.code,
        ms: Math.round((performance.now() - started) * 10) / 10,
      };
      if (ctx.headerSent || ctx.respond === false) {
        log.error('request_failed', { ...fields, after_headers: true, error: thrown });
        ctx.res.destroy();
        return;
      }
      ctx.status = err.status;
      ctx.body = err.toBody();
      if (err.retryAfterSeconds !== undefined)
        ctx.set('Retry-After', String(Math.max(1, Math.ceil(err.retryAfterSeconds))));
      if (err instanceof MethodNotAllowedError) ctx.set('Allow', err.allow.join(', '));
      if (err.status === 401) ctx.set('WWW-Authenticate', `Bearer error="invalid_token"`);
      if (err.status >= 500) log.error('request_failed', { ...fields, error: thrown });
      else log.info('request_rejected', { ...fields, message: err.message });
    }
  };
}
