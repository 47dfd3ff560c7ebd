/**
 * A changed commit reruns only what the indexer's granularity allows (issue 29 item 4; docs/precise.md "Incremental").
 *
 * scip-typescript indexes tsconfig project by project (a solution's references first), and a project's documents are
 * a function of its *program*: its root files and every file they import (sources, type files, JSON modules), its
 * tsconfig chain, and the indexer itself (the tool key). So the tier keeps, with a commit's result, the index itself,
 * the commit's tree (path -> blob id) and the index's layout: per project (in scip-typescript's order) the byte range
 * of its documents and the repository files of its program (the runner, scip-typescript.mjs `--layout`). A later
 * commit of the same source reruns the projects one of whose program files changed and takes the documents of every
 * other project from that index unchanged; the merged index is what a full run writes (same documents, same order),
 * and it is derived and stored as a full run's would be.
 *
 * When a project cannot be judged by its program files, everything reruns: a file of the indexer's kinds added or
 * removed (an include glob or a module resolution may now find it: which programs would is not known beforehand), or
 * a JSON file changed that no program holds (a tsconfig, an `extends` target, a package.json's `types`), or the
 * checkout has no package.json at its root: scip-typescript names a file's symbols after the nearest package.json
 * above it, and a file outside its project's folder with none above is named by its absolute path, the scratch folder
 * of that run, so one run's documents would not join another's. A changed source that no program holds changes
 * nothing (no project read it).
 */
import { readFile, writeFile } from 'node:fs/promises';

/** Where each project's documents are in an index, and the repository files its program read (runner's --layout). */
export interface IndexLayout {
  /** Bytes of the metadata at the index's start. */
  metadata: number;
  projects: Array<{
    /** The project's tsconfig, relative to the checkout. */
    name: string;
    start: number;
    end: number;
    /** Repository files of the program (empty for a project all of whose files an earlier project indexed). */
    program: string[];
    /** Skipped by the runner: its documents come from an earlier commit's index. */
    skipped: boolean;
  }>;
  documents: number;
}

/** An earlier commit's index as stored with its result. */
export interface StoredIndex {
  commit: string;
  /** path -> blob id of that commit. */
  tree: Record<string, string>;
  layout: IndexLayout;
}

/** Files scip-typescript may read: sources, type files, JSON (modules, tsconfig, package.json). */
const READ_BY_INDEXER = /\.(?:[cm]?[jt]sx?|json)$/;

/** What a changed commit reruns: the projects to take from the earlier index (`reuse`), or why all rerun. */
export function planRerun(
  prev: StoredIndex,
  tree: ReadonlyMap<string, string>,
): { reuse: string[]; changed: number } | { all: string } {
  if (!tree.has('package.json')) return { all: 'no package.json at the root' };
  const changed: string[] = [];
  for (const [path, blob] of tree) {
    if (!READ_BY_INDEXER.test(path)) continue;
    const was = prev.tree[path];
    if (was === undefined) return { all: `${path} was added` };
    if (was !== blob) changed.push(path);
  }
  for (const path of Object.keys(prev.tree))
    if (READ_BY_INDEXER.test(path) && !tree.has(path)) return { all: `${path} was removed` };
  const read = new Set(prev.layout.projects.flatMap((p) => p.program));
  const config = changed.find((p) => p.endsWith('.json') && !read.has(p));
  if (config !== undefined) return { all: `${config} changed` };
  const touched = new Set(changed);
  const reuse = prev.layout.projects.filter((p) => !p.program.some((f) => touched.has(f))).map((p) => p.name);
  return { reuse, changed: changed.length };
}

/**
 * Puts the index of a run that skipped projects together with the earlier index those projects' documents come from:
 * project by project in the run's order, the run's own documents or the earlier ones. Returns null when a skipped
 * project is not in the earlier index (then the caller runs everything).
 */
export function assembleIndex(
  run: { bytes: Buffer; layout: IndexLayout },
  prev: { bytes: Buffer; layout: IndexLayout },
): { bytes: Buffer; layout: IndexLayout } | null {
  const earlier = new Map(prev.layout.projects.map((p) => [p.name, p]));
  const metadata =
    run.layout.metadata > 0 ? run.bytes.subarray(0, run.layout.metadata) : prev.bytes.subarray(0, prev.layout.metadata);
  const parts: Buffer[] = [metadata];
  let at = metadata.length;
  const projects: IndexLayout['projects'] = [];
  for (const p of run.layout.projects) {
    const from = p.skipped ? earlier.get(p.name) : p;
    if (from === undefined) return null;
    const bytes = (p.skipped ? prev.bytes : run.bytes).subarray(from.start, from.end);
    parts.push(bytes);
    projects.push({ name: p.name, start: at, end: at + bytes.length, program: from.program, skipped: false });
    at += bytes.length;
  }
  return {
    bytes: Buffer.concat(parts),
    layout: { metadata: metadata.length, projects, documents: run.layout.documents },
  };
}

/**
 * Reads the runner's layout and, when it skipped projects, rewrites `output` as the whole index (assembleIndex) and
 * returns its layout with how many projects were taken from `prev`; null when they cannot be (no earlier index).
 */
export async function completeIndex(
  output: string,
  layoutFile: string,
  prev: { bytes: Buffer; layout: IndexLayout } | null,
): Promise<{ layout: IndexLayout; reused: number } | null> {
  const layout = JSON.parse(await readFile(layoutFile, 'utf8')) as IndexLayout;
  const reused = layout.projects.filter((p) => p.skipped).length;
  if (reused === 0) return { layout, reused };
  if (prev === null) return null;
  const whole = assembleIndex({ bytes: await readFile(output), layout }, prev);
  if (whole === null) return null;
  await writeFile(output, whole.bytes);
  return { layout: whole.layout, reused };
}
