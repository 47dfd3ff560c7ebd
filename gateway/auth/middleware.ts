/**
 * Authentication of a routed request. The token comes from `Authorization: Bearer`, or, on the event stream only,
 * from the `token` query parameter (EventSource cannot set headers). A `token` query parameter anywhere else is
 * refused rather than ignored: it would otherwise travel on to an upstream and into its access logs.
 */
import type Koa from 'koa';
import { ServiceError, UnauthorizedError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import type { Claims, TokenVerifier } from './verify.ts';

export interface Authenticator {
  /** Sets ctx.state.claims or throws a 401 ServiceError (logged as auth_failed). */
  authenticate(ctx: Koa.Context, options: { queryTokenAllowed: boolean }): Promise<Claims>;
}

function bearer(ctx: Koa.Context): string | undefined {
  const header = ctx.get('authorization');
  if (header === '') return undefined;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!m) throw new UnauthorizedError('Authorization header must be "Bearer <token>"');
  return m[1];
}

function queryToken(ctx: Koa.Context): string | undefined {
  const v = ctx.query.token;
  if (Array.isArray(v)) throw new UnauthorizedError('token query parameter must be given once');
  return v === undefined || v === '' ? undefined : v;
}

export function createAuthenticator(verifier: TokenVerifier | 'disabled', stub: Claims, log: Logger): Authenticator {
  return {
    async authenticate(ctx, { queryTokenAllowed }) {
      if (verifier === 'disabled') {
        ctx.state.claims = stub;
        return stub;
      }
      try {
        const fromHeader = bearer(ctx);
        const fromQuery = queryToken(ctx);
        if (fromQuery !== undefined && !queryTokenAllowed)
          throw new UnauthorizedError('the token query parameter is accepted on /api/events only');
        const token = fromHeader ?? fromQuery;
        if (token === undefined) throw new UnauthorizedError('missing token');
        const claims = await verifier.verify(token);
        ctx.state.claims = claims;
        return claims;
      } catch (err) {
        if (err instanceof ServiceError && err.status === 401) {
          log.warning('auth_failed', {
            method: ctx.method,
            path: ctx.path,
            code: err.code,
            reason: err.message,
            remote: ctx.ip,
          });
        }
        throw err;
      }
    },
  };
}
