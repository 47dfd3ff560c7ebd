/**
 * The login pages of the IdP stand-in, under `<realm>/login-actions/<uid>` (Keycloak keeps its login forms under
 * `login-actions` too). A person signs in with a username and password from IDP_USERS; consent is granted without a
 * page, as Keycloak does for clients that do not require consent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual, createHash } from 'node:crypto';
import type Provider from 'oidc-provider';
import { personSubject } from './claims.ts';
import type { IdpUser } from './config.ts';

const MAX_FORM_BYTES = 64 * 1024;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(html),
  });
  res.end(html);
}

export function loginPage(action: string, realm: string, error?: string, username = ''): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Sign in to ${escapeHtml(realm)}</title></head>
<body>
<h1>Sign in to ${escapeHtml(realm)}</h1>
<p>Development identity provider (stand-in for Keycloak).</p>
${error === undefined ? '' : `<p id="input-error" role="alert">${escapeHtml(error)}</p>`}
<form id="kc-form-login" method="post" action="${escapeHtml(action)}">
<label>Username <input name="username" autocomplete="username" value="${escapeHtml(username)}" autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form>
</body></html>
`;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_FORM_BYTES) throw new Error('form too large');
    chunks.push(buf);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sameSecret(a: string, b: string): boolean {
  // Compare digests so neither length nor content leaks through timing.
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

export interface LoginContext {
  provider: Provider;
  realm: string;
  mountPath: string;
  users: readonly IdpUser[];
  onLogin: (username: string) => void;
}

/** Handles `GET <mount>/login-actions/<uid>` and `POST <mount>/login-actions/<uid>/login`. */
export async function handleLogin(ctx: LoginContext, rest: string, req: IncomingMessage, res: ServerResponse) {
  const { provider } = ctx;
  const m = /^\/([\w-]+)(\/login)?$/.exec(rest);
  if (!m) return sendHtml(res, 404, '<p>Not found</p>');
  let details;
  try {
    details = await provider.interactionDetails(req, res);
  } catch {
    return sendHtml(res, 400, '<p>Your login attempt timed out or is unknown. Start the login again.</p>');
  }
  if (details.uid !== m[1]) return sendHtml(res, 400, '<p>Login attempt mismatch. Start the login again.</p>');
  const action = `${ctx.mountPath}/login-actions/${details.uid}/login`;
  const prompt = details.prompt.name;

  if (prompt === 'consent') {
    const promptDetails = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session?.accountId, clientId: String(details.params.client_id) });
    if (!grant) return sendHtml(res, 400, '<p>Grant not found. Start the login again.</p>');
    if (promptDetails.missingOIDCScope) grant.addOIDCScope(promptDetails.missingOIDCScope.join(' '));
    if (promptDetails.missingOIDCClaims) grant.addOIDCClaims(promptDetails.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(promptDetails.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    return provider.interactionFinished(
      req,
      res,
      { consent: details.grantId ? {} : { grantId } },
      { mergeWithLastSubmission: true },
    );
  }

  if (prompt !== 'login') return sendHtml(res, 400, `<p>Unsupported prompt ${escapeHtml(prompt)}.</p>`);
  if (req.method === 'GET' && m[2] === undefined) return sendHtml(res, 200, loginPage(action, ctx.realm));
  if (req.method !== 'POST' || m[2] === undefined) return sendHtml(res, 405, '<p>Method not allowed</p>');

  const form = await readForm(req);
  const username = form.get('username') ?? '';
  const password = form.get('password') ?? '';
  const user = ctx.users.find((u) => u.username === username);
  // Always compare, so an unknown user costs the same as a wrong password.
  const ok = sameSecret(password, user?.password ?? '\0no-user') && user !== undefined;
  if (!ok) return sendHtml(res, 401, loginPage(action, ctx.realm, 'Invalid username or password.', username));
  ctx.onLogin(username);
  return provider.interactionFinished(
    req,
    res,
    { login: { accountId: personSubject(ctx.realm, username) } },
    { mergeWithLastSubmission: false },
  );
}
