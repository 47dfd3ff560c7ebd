import type { SymbolLanguage } from './plugin.ts';
import { bashSymbols } from './langs/bash.ts';
import { cSymbols, cppSymbols } from './langs/c-family.ts';
import { csharpSymbols } from './langs/csharp.ts';
import { goSymbols } from './langs/go.ts';
import { kotlinSymbols } from './langs/kotlin.ts';
import { javaSymbols } from './langs/java.ts';
import { javascriptSymbols } from './langs/javascript.ts';
import { phpSymbols } from './langs/php.ts';
import { pythonSymbols } from './langs/python.ts';
import { rubySymbols } from './langs/ruby.ts';
import { rustSymbols } from './langs/rust.ts';
import { scalaSymbols } from './langs/scala.ts';
import { swiftSymbols } from './langs/swift.ts';
import { typescriptSymbols } from './langs/typescript.ts';

/** The languages with symbol facts and resolution. Adding one: its SymbolLanguage, its query file, one line here. */
export const SYMBOL_LANGUAGES: readonly SymbolLanguage[] = [
  typescriptSymbols,
  javascriptSymbols,
  pythonSymbols,
  goSymbols,
  javaSymbols,
  csharpSymbols,
  kotlinSymbols,
  phpSymbols,
  rubySymbols,
  cSymbols,
  cppSymbols,
  bashSymbols,
  scalaSymbols,
  swiftSymbols,
  rustSymbols,
];

const byId = new Map(SYMBOL_LANGUAGES.map((l) => [l.id, l]));

export function symbolLanguage(id: string): SymbolLanguage | undefined {
  return byId.get(id);
}
