import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { errorText } from './error-text.ts';
import type { DiscoveredFile, EngineIssue } from './types.ts';

export type { DiscoveredFile };

/**
 * A repository-relative include path, without a leading `./` or `/` and trailing slashes. A backslash is part of a
 * name (git paths separate with `/` only; a file may be called `a\b.py`), so it is kept as it is.
 */
function normaliseInclude(p: string): string {
  return p.replace(/^\.?\/+/, '').replace(/\/+$/, '');
}

/** A file name whose bytes are not all UTF-8: the valid characters as they are, every other byte (and `%`) as %XX. */
export function escapeName(b: Buffer): string {
  let out = '';
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    const len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    const seq = len > 0 ? b.subarray(i, i + len) : undefined;
    if (seq && seq.length === len && Buffer.from(seq.toString('utf8'), 'utf8').equals(seq) && c !== 0x25) {
      out += seq.toString('utf8');
      i += len;
    } else {
      out += `%${c.toString(16).toUpperCase().padStart(2, '0')}`;
      i += 1;
    }
  }
  return out;
}

/** The error without the worker's paths (error-text.ts). */
const errorMessage = errorText;

/** What a symlink in the repository says it points to (repository content, not a path of the worker). */
function linkTarget(abs: string): string {
  try {
    return JSON.stringify(readlinkSync(abs));
  } catch {
    return 'an unreadable target';
  }
}

/**
 * Walks a checked-out tree in sorted order. `.git` is skipped; a symlink is recorded only when it points to a file
 * inside the tree (never followed out of it, never followed into a directory); `includePaths` (files or folders,
 * repository-relative) limit the walk. Problems become issues, never exceptions.
 */
export function discover(
  root: string,
  includePaths: readonly string[] = [],
  onIssue: (i: EngineIssue) => void = () => {},
): DiscoveredFile[] {
  const realRoot = realpathSync(root);
  const includes = includePaths.map(normaliseInclude).filter((p) => p.length > 0);
  const wanted = (rel: string): boolean =>
    includes.length === 0 || includes.some((inc) => rel === inc || rel.startsWith(inc + '/'));
  const mayContain = (relDir: string): boolean =>
    includes.length === 0 ||
    includes.some((inc) => inc === relDir || inc.startsWith(relDir + '/') || relDir.startsWith(inc + '/'));
  const out: DiscoveredFile[] = [];
  const issue = (code: string, message: string, path: string, level: EngineIssue['level'] = 'warning'): void =>
    onIssue({ level, phase: 'discovery', code, message, file_path: path });

  const walk = (absDir: string, relDir: string): void => {
    let raw: Buffer[];
    try {
      raw = readdirSync(absDir, { encoding: 'buffer' });
    } catch (err) {
      issue('unreadable_directory', errorMessage(err), relDir);
      return;
    }
    const names: string[] = [];
    for (const b of raw) {
      const name = b.toString('utf8');
      if (Buffer.from(name, 'utf8').equals(b)) {
        names.push(name);
        continue;
      }
      // The service stores paths as UTF-8 text, and a name read as a string cannot even be opened again (it used to
      // be dropped with a misleading ENOENT). Say what it is: the name with its bytes that are not UTF-8 as %XX.
      const shown = escapeName(b);
      const rel = relDir === '' ? shown : `${relDir}/${shown}`;
      if (wanted(rel) || mayContain(rel)) {
        issue(
          'invalid_file_name',
          'the file name is not valid UTF-8 (its bytes that are not are shown as %XX); the file is not indexed',
          rel,
        );
      }
    }
    names.sort();
    for (const name of names) {
      if (name === '.git') continue;
      const rel = relDir === '' ? name : `${relDir}/${name}`;
      const abs = join(absDir, name);
      let st;
      try {
        st = lstatSync(abs);
      } catch (err) {
        issue('unreadable_file', errorMessage(err), rel);
        continue;
      }
      if (st.isDirectory()) {
        if (mayContain(rel)) walk(abs, rel);
      } else if (st.isFile()) {
        if (wanted(rel)) out.push({ path: rel, absolute: abs, size: st.size });
      } else if (st.isSymbolicLink()) {
        if (!wanted(rel)) continue;
        let target: string;
        try {
          target = realpathSync(abs);
        } catch (err) {
          issue(
            'broken_symlink',
            `symlink target ${linkTarget(abs)} does not exist: ${errorMessage(err)}`,
            rel,
            'info',
          );
          continue;
        }
        if (target !== realRoot && !target.startsWith(realRoot + sep)) {
          issue('symlink_outside_tree', 'symlink points outside the repository; not followed', rel);
          continue;
        }
        let tst;
        try {
          tst = statSync(target);
        } catch (err) {
          issue('unreadable_file', errorMessage(err), rel);
          continue;
        }
        if (tst.isFile()) out.push({ path: rel, absolute: target, size: tst.size });
        else issue('symlink_to_directory', 'symlink to a directory inside the tree; not followed', rel, 'info');
      }
    }
  };
  walk(realRoot, '');
  return out;
}
