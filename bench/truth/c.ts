import { spawnSync } from 'node:child_process';
import { dirname, join, relative, resolve } from 'node:path';
import type { Truth } from './types.ts';
import { walkFiles } from './walk.ts';

const C_SOURCE = /\.(c|h)$/;
const CPP_SOURCE = /\.(cc|cpp|cxx|c\+\+|hpp|hh|hxx|h\+\+|ipp|tpp|inl)$/;

/**
 * The GNU preprocessor's own include search (`gcc -M -MG -H`, one run per file; `g++ -x c++` for C++): the
 * depth-1 entries of the -H tree are the file's direct includes. Include path: the including file's directory for
 * quoted includes (always), then -I for the repository root and every directory named include or inc, then the
 * system directories. -MG keeps going past headers that are missing (generated or external). Only the active
 * branches of #if/#ifdef are seen, for this machine's default target.
 */
export function cTruth(root: string): Truth {
  const files = walkFiles(root, (p) => C_SOURCE.test(p) || CPP_SOURCE.test(p));
  const dirs = new Set<string>();
  for (const f of files) for (let d = dirname(f); d !== '.'; d = dirname(d)) dirs.add(d);
  const includeDirs = [...dirs].filter((d) => /(^|\/)(include|inc)$/.test(d)).sort();
  const flags = ['-I', root, ...includeDirs.flatMap((d) => ['-I', join(root, d)])];
  const items: Truth['items'] = [];
  for (const f of files) {
    const cpp = CPP_SOURCE.test(f) || (f.endsWith('.h') && false);
    const args = [...(cpp ? ['-x', 'c++'] : ['-x', 'c']), '-M', '-MG', '-H', ...flags, f];
    const r = spawnSync(cpp ? 'g++' : 'gcc', args, {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
      timeout: 30_000,
    });
    for (const line of (r.stderr ?? '').split('\n')) {
      const m = /^\. (.+)$/.exec(line);
      if (!m) continue;
      const rel = relative(root, resolve(root, m[1]!));
      items.push({ from: f, targets: new Set(rel.startsWith('..') || rel === f ? [] : [rel]) });
    }
  }
  return {
    tool: `gcc -M -MG -H per file; -iquote own dir, -I root and ${includeDirs.length} include/inc dirs; system headers from the system`,
    scope: new Set(files),
    items,
  };
}
