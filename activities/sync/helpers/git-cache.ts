/**
 * The kept clone of a source (issue 12): instead of a fresh depth-1 fetch and a checkout of the whole tree for every
 * sync, a worker keeps one clone per source it synced (Workspaces holds the folders) and brings it to the new commit:
 *
 *   git fetch --depth 1 <url> <ref>   the cache's ref `refs/ckg/synced` is offered as "have", so the code host sends
 *                                     only the objects the new commit adds (a one-file change: a few objects, not the
 *                                     whole tree again);
 *   git checkout -f --detach          rewrites only the files that differ from the checked-out commit;
 *   git diff-tree <previous> <new>    the paths whose bytes may differ from the commit the previous sync read: every
 *                                     other regular file is known unchanged without reading or hashing it.
 *
 * A sync of the commit the clone already has checked out (a re-sync without a new commit) runs three git commands
 * instead of six: no checkout (nothing to rewrite), no diff-tree when the previous sync read the same commit (nothing
 * changed), no update of `refs/ckg/synced` when it already names the commit. Each spawn of git costs the worker's
 * main thread ~15 ms of CPU and the sync ~20 ms.
 *
 * Same environment, options and rules as the fresh checkout (git-checkout.ts). When the new commit holds a path the
 * file system cannot hold, the caller falls back to the fresh checkout (which leaves such files out).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isCommitId } from '../../../lib/git-ref.ts';
import {
  CloneError,
  checkRef,
  fetchArgs,
  fetchUrl,
  git,
  gitBytes,
  gitEnv,
  unrepresentable,
  type CloneRequest,
} from './git-checkout.ts';

export interface CachedCheckout {
  commitSha: string;
  commitAt: string;
  /**
   * Regular files of the new commit whose bytes equal those at the previous commit (not in the diff, not a symlink,
   * no .gitattributes changed); null when unknown (no previous commit, or the cache does not hold it).
   */
  unchanged: Set<string> | null;
  /** False when the clone's files were already those of the commit (no checkout ran, the folder was not new). */
  rewritten: boolean;
  /**
   * When every change since the previous commit (`since`) is an edit of a regular file's content: the edited paths
   * (the tree has the same paths as at `since`, so its walk can be refreshed instead of redone).
   */
  edits?: { since: string; paths: ReadonlySet<string> };
}

/** The ref that records the last commit fetched into the cache (offered as "have" by the next fetch). */
const SYNCED_REF = 'refs/ckg/synced';

interface TreeEntry {
  mode: string;
  path: string;
}

/** Parses `git ls-tree -r -z --full-tree` output: entries and the NUL-separated raw names (for unrepresentable()). */
function parseTree(listing: Buffer): { entries: TreeEntry[]; names: Buffer } {
  const entries: TreeEntry[] = [];
  const names: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= listing.length; i++) {
    if (i < listing.length && listing[i] !== 0) continue;
    if (i > start) {
      const tab = listing.indexOf(9, start);
      if (tab > start && tab < i) {
        const raw = listing.subarray(tab + 1, i);
        names.push(raw, Buffer.from([0]));
        entries.push({
          mode: listing.toString('latin1', start, listing.indexOf(32, start)),
          path: raw.toString('utf8'),
        });
      }
    }
    start = i + 1;
  }
  return { entries, names: Buffer.concat(names) };
}

/**
 * The commit a ref of the clone names, read from its file (`HEAD` detached after a checkout, or a loose ref); null when
 * the file is missing (a packed ref, a fresh clone) or names no commit: the caller then asks git.
 */
function refCommit(dir: string, ref: string): string | null {
  try {
    const text = readFileSync(join(dir, '.git', ref), 'utf8').trim();
    return /^[0-9a-f]{40,64}$/.test(text) ? text : null;
  } catch {
    return null;
  }
}

/**
 * What the last update of each kept clone (by folder) learnt of the commit it checked out: its date and its tree. A
 * re-sync of that commit (the ref did not move) then runs one git command, the fetch, instead of three (`log` and
 * `ls-tree` would say the same again; each spawn of git from the worker costs ~15-25 ms). Forgotten when the folder is
 * made again or checks out another commit; at most KEPT_TREES folders are remembered (a worker keeps 16 clones by
 * default), the oldest forgotten first.
 */
const checkedOut = new Map<string, { commitSha: string; commitAt: string; entries: readonly TreeEntry[] }>();
const KEPT_TREES = 64;

function remember(dir: string, what: { commitSha: string; commitAt: string; entries: readonly TreeEntry[] }): void {
  checkedOut.delete(dir);
  checkedOut.set(dir, what);
  for (const key of checkedOut.keys()) {
    if (checkedOut.size <= KEPT_TREES) break;
    checkedOut.delete(key);
  }
}

/** The commit the last fetch brought (`.git/FETCH_HEAD`'s first line starts with it); null when unreadable. */
function fetchedCommit(dir: string): string | null {
  try {
    const m = /^([0-9a-f]{40,64})\t/.exec(readFileSync(join(dir, '.git', 'FETCH_HEAD'), 'utf8'));
    return m ? m[1]! : null;
  } catch {
    return null;
  }
}

/** Regular files of the tree not among the changed paths (a symlink's content is its target's: always read). */
function unchangedFiles(entries: readonly TreeEntry[], changed: ReadonlySet<string>): Set<string> {
  const unchanged = new Set<string>();
  for (const e of entries) {
    if ((e.mode === '100644' || e.mode === '100755') && !changed.has(e.path)) unchanged.add(e.path);
  }
  return unchanged;
}

/**
 * Paths named by `git diff-tree -r -z --raw --no-renames` output (":m m o o S\0path\0" per entry), and whether every
 * change is an edit of a regular file's content (status M, the same mode before and after): the tree then has the
 * same paths as before.
 */
export function changedPaths(raw: Buffer): { paths: Set<string>; contentOnly: boolean } {
  const parts = raw.toString('utf8').split('\0');
  const paths = new Set<string>();
  let contentOnly = true;
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i]!;
    if (!meta.startsWith(':')) break;
    paths.add(parts[i + 1]!);
    const [from, to, , , status] = meta.slice(1).split(' ');
    if (status !== 'M' || from !== to || (to !== '100644' && to !== '100755')) contentOnly = false;
  }
  return { paths, contentOnly };
}

/**
 * Brings the kept clone in `req.dir` to `req.ref` (`reset`: start from an empty folder). Returns null when the
 * commit cannot be checked out whole here (a path the file system cannot hold): the caller uses the fresh checkout.
 */
export async function updateCachedCheckout(
  req: CloneRequest & { previousCommit: string | null; reset: boolean },
): Promise<CachedCheckout | null> {
  checkRef(req.ref);
  const url = fetchUrl(req.url, req.urls);
  const dir = resolve(req.dir);
  const env = gitEnv(req.token, dir, req.urls.schemes);
  const run = (args: string[]) => git(args, env, req.signal, req.timeoutMs);
  const bytes = (args: string[]) => gitBytes(args, env, req.signal, req.timeoutMs);
  let rewritten = false;
  if (req.reset || !existsSync(join(dir, '.git'))) {
    checkedOut.delete(dir);
    rewritten = true;
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await git(['init', '-q', dir], gitEnv(null), req.signal, req.timeoutMs);
  }
  await run(['-C', dir, ...fetchArgs(url, req.ref)]);
  // The commit this clone last checked out, when the ref still names it: what git log and ls-tree would say is known.
  const last = checkedOut.get(dir);
  if (
    last &&
    fetchedCommit(dir) === last.commitSha &&
    refCommit(dir, 'HEAD') === last.commitSha &&
    refCommit(dir, 'refs/ckg/synced') === last.commitSha
  ) {
    return {
      commitSha: last.commitSha,
      commitAt: last.commitAt,
      rewritten,
      ...(await since(last.commitSha, last.entries)),
    };
  }
  const out = await run(['-C', dir, 'log', '-1', '--format=%H%x00%cI', 'FETCH_HEAD']);
  const [commitSha, commitAt] = out.trim().split('\0');
  if (!commitSha || !commitAt || !isCommitId(commitSha))
    throw new CloneError('clone_failed', 'git log returned no commit');
  if (refCommit(dir, 'refs/ckg/synced') !== commitSha) await run(['-C', dir, 'update-ref', SYNCED_REF, commitSha]);
  const { entries, names } = parseTree(
    await bytes(['-C', dir, 'ls-tree', '-r', '-z', '--full-tree', '--end-of-options', commitSha]),
  );
  // HEAD names the commit only once a checkout of it finished, and a clone whose update did not finish is started
  // afresh (Workspaces: `reset`): its files are in place, nothing to rewrite.
  if (refCommit(dir, 'HEAD') !== commitSha) {
    checkedOut.delete(dir);
    if (unrepresentable(names, Buffer.byteLength(dir) + 1).length > 0) return null;
    rewritten = true;
    // (checkout takes no --end-of-options here; commitSha is a commit id, checked above)
    await run(['-C', dir, 'checkout', '-q', '-f', '--no-recurse-submodules', '--detach', commitSha]);
  }
  remember(dir, { commitSha, commitAt, entries });
  return { commitSha, commitAt, rewritten, ...(await since(commitSha, entries)) };

  /** What changed since the previous sync's commit: the files known unchanged, and the edits when only contents changed. */
  async function since(
    commitSha: string,
    entries: readonly TreeEntry[],
  ): Promise<Pick<CachedCheckout, 'unchanged' | 'edits'>> {
    const previous = req.previousCommit;
    if (!previous || !isCommitId(previous)) return { unchanged: null };
    let changed: ReturnType<typeof changedPaths> = { paths: new Set(), contentOnly: true };
    try {
      if (previous !== commitSha) {
        changed = changedPaths(
          await bytes([
            '-C',
            dir,
            'diff-tree',
            '-r',
            '-z',
            '--raw',
            '--no-renames',
            '--end-of-options',
            previous,
            commitSha,
          ]),
        );
      }
    } catch {
      return { unchanged: null }; // the cache does not hold the previous commit
    }
    // Attributes (eol, filters) change the bytes a checkout writes for a blob that did not change.
    for (const p of changed.paths)
      if (p === '.gitattributes' || p.endsWith('/.gitattributes')) return { unchanged: null };
    return {
      unchanged: unchangedFiles(entries, changed.paths),
      ...(changed.contentOnly ? { edits: { since: previous, paths: changed.paths } } : {}),
    };
  }
}
