import type { LanguagePlugin } from './plugin.ts';
import { bash } from './bash.ts';
import { c } from './c.ts';
import { cpp } from './cpp.ts';
import { csharp } from './csharp.ts';
import { go } from './go.ts';
import { java } from './java.ts';
import { javascript } from './javascript.ts';
import { kotlin } from './kotlin.ts';
import { php } from './php.ts';
import { python } from './python.ts';
import { ruby } from './ruby.ts';
import { rust } from './rust.ts';
import { scala } from './scala.ts';
import { swift } from './swift.ts';
import { typescript } from './typescript.ts';

/** Every language plugin. Adding a language: one plugin file, its grammar package, its query file, one line here. */
export const PLUGINS: readonly LanguagePlugin[] = [
  javascript,
  typescript,
  python,
  go,
  rust,
  java,
  kotlin,
  scala,
  c,
  cpp,
  csharp,
  ruby,
  php,
  bash,
  swift,
];

const byId = new Map(PLUGINS.map((p) => [p.id, p]));
const byExtension = new Map<string, LanguagePlugin>();
const byInterpreter = new Map<string, LanguagePlugin>();
for (const p of PLUGINS) {
  for (const e of p.extensions) byExtension.set(e, p);
  for (const i of p.interpreters ?? []) byInterpreter.set(i, p);
}

export function pluginById(id: string): LanguagePlugin | undefined {
  return byId.get(id);
}

export function pluginForExtension(ext: string): LanguagePlugin | undefined {
  return byExtension.get(ext.toLowerCase());
}

export function pluginForInterpreter(name: string): LanguagePlugin | undefined {
  return byInterpreter.get(name) ?? byInterpreter.get(name.replace(/[\d.]+$/, ''));
}
