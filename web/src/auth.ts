/**
 * Sign-in with the identity provider through oidc-client-ts: authorization code with PKCE (S256) for the public
 * client, tokens kept in sessionStorage, refreshed with the refresh token before they expire (automaticSilentRenew,
 * 60 s ahead). The authorization response's `code` and `state` are removed from the address bar at once.
 */
import { UserManager, WebStorageStateStore, type User } from 'oidc-client-ts';
import type { ExplorerConfig } from './config.ts';

export interface Auth {
  /** Completes a redirect back from the provider, or restores a stored session. Undefined: not signed in. */
  start(): Promise<User | undefined>;
  signIn(): Promise<void>;
  signOut(): Promise<void>;
  /** The current access token; refreshed first when it has expired. */
  token(): Promise<string>;
  /** Forces a refresh (after a 401 or a `token_expired` event frame). */
  refresh(): Promise<string>;
  onChange(listener: (user: User | undefined) => void): void;
}

/** The query of the address a sign-in started from, restored after the identity provider sends the user back. */
const RETURN_KEY = 'ckg-explorer-return';

export function createAuth(config: ExplorerConfig): Auth {
  const home = `${location.origin}/`;
  const manager = new UserManager({
    authority: config.authority,
    client_id: config.clientId,
    redirect_uri: home,
    post_logout_redirect_uri: home,
    response_type: 'code',
    scope: 'openid profile email',
    automaticSilentRenew: true,
    accessTokenExpiringNotificationTimeInSeconds: 60,
    loadUserInfo: false,
    userStore: new WebStorageStateStore({ store: window.sessionStorage }),
  });
  const listeners: Array<(user: User | undefined) => void> = [];
  const emit = (user: User | undefined) => listeners.forEach((l) => l(user));
  manager.events.addUserLoaded((user) => emit(user));
  manager.events.addUserUnloaded(() => emit(undefined));
  manager.events.addSilentRenewError(() => emit(undefined));

  let refreshing: Promise<string> | undefined;
  const refresh = () =>
    (refreshing ??= manager
      .signinSilent()
      .then((user) => {
        if (!user) throw new Error('the session has ended; sign in again');
        return user.access_token;
      })
      .finally(() => (refreshing = undefined)));

  return {
    async start() {
      const params = new URLSearchParams(location.search);
      if (params.has('code') && params.has('state')) {
        try {
          return await manager.signinRedirectCallback();
        } finally {
          // Back to the address the sign-in started from (the selected source, syncs and node live in its query).
          history.replaceState(null, '', home + (sessionStorage.getItem(RETURN_KEY) ?? ''));
          sessionStorage.removeItem(RETURN_KEY);
        }
      }
      const user = await manager.getUser();
      if (!user) return undefined;
      if (!user.expired) return user;
      try {
        await refresh();
        return (await manager.getUser()) ?? undefined;
      } catch {
        await manager.removeUser();
        return undefined;
      }
    },
    signIn: () => {
      sessionStorage.setItem(RETURN_KEY, location.search);
      return manager.signinRedirect();
    },
    async signOut() {
      await manager.removeUser();
      emit(undefined);
    },
    async token() {
      const user = await manager.getUser();
      if (!user) throw new Error('not signed in');
      return user.expired ? refresh() : user.access_token;
    },
    refresh,
    onChange: (l) => listeners.push(l),
  };
}
