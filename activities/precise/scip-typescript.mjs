/**
 * Runs scip-typescript's own `index` command (the arguments after the indexer's main.js are passed unchanged) with two
 * changes the precise tier asks for, both about cost, neither about what the index says of uses and definitions:
 *
 *   1. no hover text: for every definition scip-typescript writes a signature (`const app: Hono<...>`), which makes the
 *      type checker infer and print the type of every local variable and parameter. The tier never reads it (only
 *      occurrences, enclosing ranges and relationships), and on hono it was about half of the indexer's time. The
 *      signature is left empty; the doc comment and the relationships are still written;
 *   2. a file is indexed once: a solution tsconfig whose referenced projects overlap (hono's tsconfig.build.json and
 *      tsconfig.spec.json both include src/) made scip-typescript index the shared files once per project, writing
 *      the same document twice. A project indexes only the files no earlier project indexed (the first one wins, in
 *      scip-typescript's own order: references before the project itself).
 *
 * Both hook scip-typescript's classes (FileIndexer.prototype.signatureForDocumentation, ProjectIndexer.prototype.index)
 * of the pinned version (scripts/stack/indexers.sh); if either is missing (another version), this exits 3 before
 * indexing anything, and the run is an indexer failure (a sync issue), never a different index.
 *
 *   node scip-typescript.mjs <scip-typescript's dist/src/main.js> index [options] [projects...]
 */
import { createRequire } from 'node:module';

const [node, , main, ...args] = process.argv;
if (!main) {
  process.stderr.write('usage: scip-typescript.mjs <scip-typescript main.js> index ...\n');
  process.exit(2);
}
const require = createRequire(main);
const { FileIndexer } = require('./FileIndexer.js');
const { ProjectIndexer } = require('./ProjectIndexer.js');
if (
  typeof FileIndexer?.prototype?.signatureForDocumentation !== 'function' ||
  typeof ProjectIndexer?.prototype?.index !== 'function'
) {
  process.stderr.write(
    'this scip-typescript version has no FileIndexer.signatureForDocumentation/ProjectIndexer.index\n',
  );
  process.exit(3);
}

FileIndexer.prototype.signatureForDocumentation = () => '';

const indexed = new Set();
const indexProject = ProjectIndexer.prototype.index;
ProjectIndexer.prototype.index = function indexNewFiles() {
  const files = this.config.fileNames.filter((f) => !indexed.has(f));
  for (const f of files) indexed.add(f);
  // Every file of this project was indexed by an earlier one: nothing to write (scip-typescript would throw).
  if (files.length === 0) return;
  this.config = { ...this.config, fileNames: files };
  return indexProject.call(this);
};

process.argv = [node, main, ...args];
require(main).main();
