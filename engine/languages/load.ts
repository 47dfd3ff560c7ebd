import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Loads a CommonJS grammar package, optionally one named export of it (e.g. tree-sitter-typescript's `tsx`). */
export function requireGrammar(pkg: string, key?: string): unknown {
  const mod = require(pkg) as Record<string, unknown>;
  return key === undefined ? mod : mod[key];
}
