import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { DiscoveredFile, EngineIssue } from './types.ts';

export type { DiscoveredFile };

function normaliseInclude(p: string): string {
  return p
    .replace(/\\/g, '/')
    .replace(/^\.?\/+/, '')
    .replace(/\/+$/, '');
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
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
    let names: string[];
    try {
      names = readdirSync(absDir);
    } catch (err) {
      issue('unreadable_directory', errorMessage(err), relDir);
      return;
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
          issue('broken_symlink', `symlink target does not exist: ${errorMessage(err)}`, rel, 'info');
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
