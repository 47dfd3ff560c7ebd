import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Truth } from './types.ts';
import { parseJsonLines } from './types.ts';
import { walkFiles } from './walk.ts';

const SCRIPT = fileURLToPath(new URL('./ruby_edges.rb', import.meta.url));

/** Ruby's parser and $LOAD_PATH.resolve_feature_path (ruby_edges.rb); ruby is installed when missing. */
export function rubyTruth(root: string): Truth {
  try {
    execFileSync('ruby', ['--version'], { stdio: 'ignore' });
  } catch {
    execFileSync('apt-get', ['install', '-y', 'ruby'], { stdio: 'ignore' });
  }
  const out = execFileSync('ruby', [SCRIPT, root], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return {
    tool: `${execFileSync('ruby', ['--version'], { encoding: 'utf8' }).trim()}: RubyVM::AbstractSyntaxTree + $LOAD_PATH.resolve_feature_path (own gem lib/ spec/ test/, then every gem lib/ of the tree)`,
    scope: new Set(walkFiles(root, (p) => /\.(rb|rake|gemspec)$/.test(p))),
    items: parseJsonLines(out).map((r) => ({ from: r.from, targets: new Set(r.targets) })),
  };
}
