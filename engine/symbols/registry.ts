import type { SymbolLanguage } from './plugin.ts';
import { goSymbols } from './langs/go.ts';
import { javaSymbols } from './langs/java.ts';
import { javascriptSymbols } from './langs/javascript.ts';
import { pythonSymbols } from './langs/python.ts';
import { typescriptSymbols } from './langs/typescript.ts';

/** The languages with symbol facts and resolution. Adding one: its SymbolLanguage, its query file, one line here. */
export const SYMBOL_LANGUAGES: readonly SymbolLanguage[] = [
  typescriptSymbols,
  javascriptSymbols,
  pythonSymbols,
  goSymbols,
  javaSymbols,
];

const byId = new Map(SYMBOL_LANGUAGES.map((l) => [l.id, l]));

export function symbolLanguage(id: string): SymbolLanguage | undefined {
  return byId.get(id);
}
