/**
 * Where the tests find the real stack. `npm test` (scripts/test.sh) starts it and exports these; a developer can
 * also point them at their own servers.
 */
function required(name: string): string {
  const v = process.env[name];
  if (!v)
    throw new Error(`${name} is not set: run the tests with \`npm test\` (which starts the local stack) or export it`);
  return v;
}

export const testEnv = {
  get databaseUrl(): string {
    return required('DATABASE_URL');
  },
  get temporalAddress(): string {
    return required('TEMPORAL_ADDRESS');
  },
  get temporalNamespace(): string {
    return process.env.TEMPORAL_NAMESPACE ?? 'default';
  },
};

/**
 * The tests' repository URL policy (lib/source-url.ts): local repositories (paths, file://) and the plain-http test
 * code host (test/support/git-http.ts) besides https and ssh, as SOURCE_URL_SCHEMES=https,ssh,http,file turns on.
 */
export const TEST_URL_POLICY = { schemes: ['https', 'ssh', 'http', 'file'], hosts: [] } as const;
export const TEST_URL_ENV = { SOURCE_URL_SCHEMES: 'https,ssh,http,file' } as const;
