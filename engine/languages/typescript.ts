import type { LanguagePlugin } from './plugin.ts';
import { requireGrammar } from './load.ts';
import { resolveJsImport } from './js-resolve.ts';

/**
 * A member of an interface or object type that starts a line with `<`: a generic call or construct signature
 * (`<K extends keyof M>(key: K): M[K]`, or `<` alone with its type parameters on the following lines). TypeScript
 * ends the previous member at the line break (type arguments never follow a line break), but tree-sitter-typescript
 * 0.23.2's scanner inserts no automatic semicolon before a `<` (upstream issue #335, open), so every such member
 * after the first is an error. The match is the one white-space character before the `<`.
 */
const GENERIC_SIGNATURE_LINE =
  /(?<=\n[ \t]*)[ \t](?=<(?:[ \t]*(?:const[ \t]+)?[A-Za-z_$][\w$]*[ \t]*(?:extends\b|[=,>])|[ \t]*\r?\n))/g;

/** `export type * from '…'` and `export type * as N from '…'` (TypeScript 5.0; upstream issue #348, open). */
const EXPORT_TYPE_STAR = /(?<=(?:^|[\n;])[ \t]*export\s+)type(?=\s*\*)/g;

/**
 * The grammar's known gaps, written the way it parses them with the same meaning for the engine: a `;` in the white
 * space before a generic signature's `<`, and the `type` of `export type *` blanked (the re-export's source stays).
 */
export function repairTypeScript(text: string): string | null {
  let hit = false;
  const out = text
    .replace(GENERIC_SIGNATURE_LINE, () => {
      hit = true;
      return ';';
    })
    .replace(EXPORT_TYPE_STAR, () => {
      hit = true;
      return '    ';
    });
  return hit ? out : null;
}

/** TypeScript, with TSX files parsed by the tsx grammar of the same package (one language id). */
export const typescript: LanguagePlugin = {
  id: 'typescript',
  extensions: ['.ts', '.tsx', '.mts', '.cts'],
  interpreters: ['ts-node', 'tsx', 'deno'],
  queryFile: 'typescript.scm',
  dialect: (path) => (path.toLowerCase().endsWith('.tsx') ? 'tsx' : 'typescript'),
  grammar: (path) =>
    Promise.resolve(
      requireGrammar('tree-sitter-typescript', path.toLowerCase().endsWith('.tsx') ? 'tsx' : 'typescript'),
    ),
  repairText: repairTypeScript,
  resolve: resolveJsImport,
};
