import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import type { Truth } from './types.ts';
import { walkFiles } from './walk.ts';

const C_SOURCE = /\.(c|h)$/;
const CPP_SOURCE = /\.(cc|cpp|cxx|c\+\+|hpp|hh|hxx|h\+\+|ipp|tpp|inl)$/;

/**
 * The GNU preprocessor's own include search (`gcc -M -MG -H`, one run per file; `g++ -x c++` for C++): the
 * depth-1 entries of the -H tree are the file's direct includes. Include path: the including file's directory for
 * quoted includes (always), then (-I, before the system directories as a build's flags are) every directory of the
 * tree holding a header and their ancestors, nearest to the including file first: the recursive include path of an
 * IDE (VS Code's `${workspaceFolder}/**`) in place of each project's build flags. Where this makes gcc take a
 * vendored copy of a standard header (`<stdbool.h>`), the engine's policy (the system's) disagrees on purpose.
 * -MG keeps going past headers that are missing (generated or external). Two passes per file: the file itself
 * (the active branches of #if/#ifdef for this machine, and computed `#include MACRO`), and a stub holding all of its
 * #include lines (every configuration, as the engine's policy counts conditional includes).
 */
export function cTruth(root: string): Truth {
  const files = walkFiles(root, (p) => C_SOURCE.test(p) || CPP_SOURCE.test(p));
  // Every directory holding a header, and their ancestors (an include root often holds only folders).
  const headerDirs = [
    ...new Set(
      files
        .filter((f) => !/\.(c|cc|cpp|cxx|c\+\+)$/.test(f))
        .flatMap((f) => {
          const out: string[] = [];
          for (let d = dirname(f); d !== '.'; d = dirname(d)) out.push(d);
          return [...out, '.'];
        }),
    ),
  ];
  const items: Truth['items'] = [];
  const closure = new Map<string, Set<string>>();
  const tmp = mkdtempSync(join(tmpdir(), 'truth-c-'));
  for (const f of files) {
    const cpp = CPP_SOURCE.test(f);
    const own = dirname(f).split('/');
    const shared = (d: string): number => {
      const parts = d.split('/');
      let n = 0;
      while (n < own.length && n < parts.length && own[n] === parts[n]) n++;
      return n;
    };
    const ordered = [...headerDirs].sort((a, b) => shared(b) - shared(a) || a.length - b.length || (a < b ? -1 : 1));
    const flags = ordered.flatMap((d) => ['-I', d === '.' ? root : join(root, d)]);
    const args = [...(cpp ? ['-x', 'c++'] : ['-x', 'c']), '-M', '-MG', '-H', ...flags, f];
    const r = spawnSync(cpp ? 'g++' : 'gcc', args, {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
      timeout: 30_000,
    });
    const seen = new Set<string>();
    for (const line of (r.stderr ?? '').split('\n')) {
      const m = /^(\.+) (.+)$/.exec(line);
      if (!m) continue;
      const rel = relative(root, resolve(root, m[2]!));
      seen.add(rel);
      if (m[1] === '.') items.push({ from: f, targets: new Set(rel.startsWith('..') || rel === f ? [] : [rel]) });
    }
    // Every configuration: the file's #include lines (comments removed) resolved by gcc from a stub that holds only
    // them, with the file's directory first (-iquote): conditional includes are edges (docs/engine.md).
    const text = readFileSync(join(root, f), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    const lines = text.split('\n').filter((l) => /^\s*#\s*include\s*["<][^">]+[">]/.test(l));
    if (lines.length > 0) {
      const stub = join(tmp, cpp ? 'stub.cpp' : 'stub.c');
      writeFileSync(stub, lines.map((l) => l.trim()).join('\n') + '\n');
      const all = spawnSync(cpp ? 'g++' : 'gcc', [...args.slice(0, -1), '-iquote', join(root, dirname(f)), stub], {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 1 << 26,
        timeout: 30_000,
      });
      for (const line of (all.stderr ?? '').split('\n')) {
        const m = /^(\.+) (.+)$/.exec(line);
        if (!m) continue;
        const rel = relative(root, resolve(root, m[2]!));
        seen.add(rel);
        if (m[1] === '.' && !rel.startsWith('..') && rel !== f) items.push({ from: f, targets: new Set([rel]) });
      }
    }
    closure.set(f, seen);
  }
  rmSync(tmp, { recursive: true, force: true });
  return {
    tool: `gcc -M -MG -H per file (the file, and a stub of all its #include lines); own dir, system dirs, -I the ${headerDirs.length} header dirs nearest-first, then system dirs`,
    scope: new Set(files),
    items,
    // gcc does not reopen a header already included through another header (include guards, #pragma once), so a
    // direct include of it is missing from the depth-1 entries; it is right when gcc included that file at all.
    plausible: (from, to) => closure.get(from)?.has(to) ?? false,
  };
}
