/**
 * Runs scip-typescript's own `index` command (the arguments after the indexer's main.js are passed unchanged) with
 * changes the precise tier asks for, all about cost, none about what the tier reads of uses and definitions:
 *
 *   1. no hover text: for every definition scip-typescript writes a signature (`const app: Hono<...>`), which makes the
 *      type checker infer and print the type of every local variable and parameter. The tier never reads it (only
 *      occurrences, enclosing ranges and relationships), and on hono it was about half of the indexer's time. The
 *      signature is left empty; the doc comment and the relationships are still written;
 *   2. a file is indexed once: a solution tsconfig whose referenced projects overlap (hono's tsconfig.build.json and
 *      tsconfig.spec.json both include src/) made scip-typescript index the shared files once per project, writing
 *      the same document twice. A project indexes only the files no earlier project indexed (the first one wins, in
 *      scip-typescript's own order: references before the project itself);
 *   3. `--uses-in-callables`: a name that is not a declaration's own name is resolved only on a line a callable could
 *      cover. The tier reads a use only inside a callable's body (engine/precise/edges.ts: the innermost function,
 *      method, constructor or function-valued const holding it); a use outside every body is dropped there. So
 *      resolving the names of top-level code (a test file's `describe(() => ...)` callbacks, hono's route chains) is
 *      work for nothing. The lines kept are a superset of every body the tier can use: every function and method
 *      declaration, constructor and function-valued variable, and for the callables whose body the tier takes from the
 *      engine's extent (accessors, method signatures: no enclosing range) the whole top-level statement holding them.
 *      Declarations' own names are still resolved everywhere (the definitions, their relationships and symbols stay as
 *      they were);
 *   4. `--processes N` (N > 1): N processes index the files, each one a contiguous part of every project (split by
 *      size), and the parts are put together in scip-typescript's own order (project by project, file by file), so
 *      the index is the one a single process writes but for the names of anonymous type literals and object
 *      properties, which scip-typescript numbers per file in the order it meets them (the tier reads neither: they are
 *      not callables). Each process builds the programs of every project (parse and bind, a small part of the time:
 *      on hono 12.9 + 15.0 CPU-s for the two against 28.1 for one) and type-checks only what its files need.
 *
 *   5. `--layout F` writes the index's layout to F: per project (scip-typescript's order) the byte range of its
 *      documents and the repository files of its program; `--skip F` (a JSON array of project names, as the layout
 *      names them) builds no program for those projects and writes none of their documents, their files still counting
 *      as indexed (rule 2): the caller takes their documents from an earlier commit's index
 *      (activities/precise/incremental.ts).
 *
 * 1 to 3 and 5 hook scip-typescript's classes (FileIndexer.prototype.signatureForDocumentation,
 * FileIndexer.prototype.visit, ProjectIndexer.prototype.index, the ProjectIndexer export main.js constructs) of the
 * pinned version (scripts/stack/indexers.sh); if one is missing (another version), this exits 3 before indexing
 * anything, and the run is an indexer failure (a sync issue), never a different index.
 *
 *   node scip-typescript.mjs [--processes N] [--uses-in-callables] [--layout F] [--skip F] <scip-typescript's main.js>
 *     index [options]
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const [node, , ...rest] = process.argv;
let processes = 1;
let shard = null;
let usesInCallables = false;
let layoutOut = null;
let skipIn = null;
while (rest[0]?.startsWith('--')) {
  const flag = rest.shift();
  if (flag === '--processes') processes = Math.max(1, Number(rest.shift()) || 1);
  else if (flag === '--shard') {
    const [k, n] = String(rest.shift()).split('/').map(Number);
    shard = { k, n };
  } else if (flag === '--uses-in-callables') usesInCallables = true;
  else if (flag === '--layout') layoutOut = rest.shift();
  else if (flag === '--skip') skipIn = rest.shift();
  else {
    process.stderr.write(`unknown option ${flag}\n`);
    process.exit(2);
  }
}
const [main, ...args] = rest;
if (!main) {
  process.stderr.write(
    'usage: scip-typescript.mjs [--processes N] [--uses-in-callables] [--layout F] [--skip F] <main.js> index ...\n',
  );
  process.exit(2);
}
const outputAt = args.indexOf('--output');
const output = outputAt >= 0 ? args[outputAt + 1] : 'index.scip';

if (processes > 1 && shard === null) await coordinate();
else runIndexer();

/** The heap flag of this process, divided among the parts (the memory limit is the whole group's). */
function heapFlag(parts) {
  const flag = process.execArgv.find((a) => a.startsWith('--max-old-space-size='));
  if (!flag) return [];
  return [`--max-old-space-size=${Math.max(256, Math.floor(Number(flag.split('=')[1]) / parts))}`];
}

/** Runs the N parts and writes their documents into the output in scip-typescript's order. */
async function coordinate() {
  const partArgs = (k) => {
    const a = [...args];
    if (outputAt >= 0) a[outputAt + 1] = `${output}.part${k}`;
    else a.push('--output', `${output}.part${k}`);
    return [
      ...heapFlag(processes),
      SELF,
      '--shard',
      `${k}/${processes}`,
      ...(usesInCallables ? ['--uses-in-callables'] : []),
      ...(skipIn ? ['--skip', skipIn] : []),
      main,
      ...a,
    ];
  };
  const codes = await Promise.all(
    Array.from({ length: processes }, (_, k) => {
      const child = spawn(node, partArgs(k), { stdio: ['ignore', 'inherit', 'inherit'] });
      return new Promise((resolve) => {
        child.on('error', () => resolve(127));
        child.on('close', (code, signal) => resolve(signal ? 128 : (code ?? 1)));
      });
    }),
  );
  const failed = codes.find((c) => c !== 0);
  const parts = codes.map((_, k) => `${output}.part${k}`);
  try {
    if (failed !== undefined) {
      process.exitCode = failed;
      return;
    }
    // A part without files wrote nothing (scip-typescript removed its output).
    const done = parts.map((p) => ({
      layout: JSON.parse(readFileSync(`${p}.layout`, 'utf8')),
      bytes: readFileSync(p),
    }));
    const written = done.filter((w) => w.layout.documents > 0);
    const first = written[0] ?? done[0];
    if (written.length === 0 && !first.layout.projects.some((p) => p.skipped)) {
      console.log('error: no files got indexed');
      process.exitCode = 1;
      return;
    }
    // The metadata (the same in every part), then project by project each part's documents, in part order.
    const projects = [];
    const out = openSync(output, 'w');
    try {
      let at = writeSync(out, first.bytes.subarray(0, first.layout.metadata));
      first.layout.projects.forEach(({ name, skipped }, p) => {
        const start = at;
        for (const { layout, bytes } of written) {
          const { start: s, end: e } = layout.projects[p];
          if (e > s) at += writeSync(out, bytes.subarray(s, e));
        }
        const program = [...new Set(done.flatMap((w) => w.layout.projects[p].program))].sort();
        projects.push({ name, start, end: at, program, skipped });
      });
    } finally {
      closeSync(out);
    }
    const documents = done.reduce((n, w) => n + w.layout.documents, 0);
    if (layoutOut) writeFileSync(layoutOut, JSON.stringify({ metadata: first.layout.metadata, projects, documents }));
    console.log(`done ${output}`);
  } finally {
    for (const p of parts) {
      rmSync(p, { force: true });
      rmSync(`${p}.layout`, { force: true });
    }
  }
}

function runIndexer() {
  const require = createRequire(main);
  const ts = require('typescript');
  const { FileIndexer } = require('./FileIndexer.js');
  const ProjectIndexerModule = require('./ProjectIndexer.js');
  const { ProjectIndexer } = ProjectIndexerModule;
  if (
    typeof FileIndexer?.prototype?.signatureForDocumentation !== 'function' ||
    typeof FileIndexer?.prototype?.visit !== 'function' ||
    typeof FileIndexer?.prototype?.getTSSymbolAtLocation !== 'function' ||
    typeof FileIndexer?.prototype?.visitSymbolOccurrence !== 'function' ||
    typeof ProjectIndexer?.prototype?.index !== 'function'
  ) {
    process.stderr.write(
      'this scip-typescript version lacks the FileIndexer/ProjectIndexer methods the runner hooks\n',
    );
    process.exit(3);
  }

  FileIndexer.prototype.signatureForDocumentation = () => '';

  if (usesInCallables) hookVisit(ts, FileIndexer);

  // The layout of this process's output: where the metadata ends and, project by project in scip-typescript's order,
  // where its documents start and end, the repository files of its program (what its documents depend on) and whether
  // it was skipped (--skip: its documents are taken from an earlier commit's index by the caller).
  const layout = { metadata: 0, projects: [], documents: 0 };
  const sizeOfOutput = () => (existsSync(output) ? statSync(output).size : 0);
  const cwd = process.cwd();
  const repoPath = (f) => {
    const r = relative(cwd, f);
    return r.startsWith('..') || isAbsolute(r) ? null : r.split(sep).join('/');
  };
  const skip = new Set(skipIn ? JSON.parse(readFileSync(skipIn, 'utf8')) : []);
  const indexed = new Set();
  /** The project's files no earlier project indexed (the first one wins), now counted as indexed. */
  const claim = (config) => {
    const own = config.fileNames.filter((f) => !indexed.has(f));
    for (const f of own) indexed.add(f);
    return own;
  };
  const projectName = (config, options) =>
    repoPath(config.options.configFilePath ?? resolve(cwd, options.projectRoot)) ?? String(options.projectRoot);
  const Indexer = ProjectIndexerModule.ProjectIndexer;
  // Replaces the class main.js constructs: a skipped project builds no program; it only claims its files.
  ProjectIndexerModule.ProjectIndexer = function ProjectOrSkipped(config, options, cache) {
    const name = projectName(config, options);
    if (!skip.has(name)) return Object.assign(new Indexer(config, options, cache), { projectName: name });
    return {
      index() {
        claim(config);
        if (layout.projects.length === 0) layout.metadata = sizeOfOutput();
        const at = sizeOfOutput();
        layout.projects.push({ name, start: at, end: at, program: [], skipped: true });
      },
    };
  };
  const indexProject = Indexer.prototype.index;
  Indexer.prototype.index = function indexNewFiles() {
    const own = claim(this.config);
    const files = shard ? partOf(own, shard) : own;
    if (layout.projects.length === 0) layout.metadata = sizeOfOutput();
    const start = sizeOfOutput();
    // The repository files of the program (sources, type files, JSON modules), when the project has files of its own:
    // a later commit that changes none of them (and adds or removes no file) gets the same documents for it.
    const program =
      own.length === 0
        ? []
        : [...new Set(this.program.getSourceFiles().flatMap((sf) => repoPath(sf.fileName) ?? []))].sort();
    try {
      // Every file of this project was indexed by an earlier one (or by another part): nothing to write
      // (scip-typescript would throw).
      if (files.length === 0) return;
      layout.documents += files.length;
      this.config = { ...this.config, fileNames: files };
      return indexProject.call(this);
    } finally {
      layout.projects.push({ name: this.projectName, start, end: sizeOfOutput(), program, skipped: false });
    }
  };

  let threw = false;
  if (shard || layoutOut) {
    process.on('exit', () => {
      // A part with no files is no failure (scip-typescript calls it one and removes the output): the whole run is
      // one only when every part has none (coordinate()). Nor is a run that skipped projects and had nothing else to
      // write.
      if (threw) return;
      const skipped = layout.projects.some((p) => p.skipped);
      if (!shard && !existsSync(output) && !skipped) return;
      if (layout.projects.length === 0) layout.metadata = sizeOfOutput();
      if (!existsSync(output)) {
        writeFileSync(output, '');
        layout.metadata = 0;
        for (const p of layout.projects) p.start = p.end = 0;
        process.exitCode = 0;
      }
      writeFileSync(shard ? `${output}.layout` : layoutOut, JSON.stringify(layout));
      if (shard) process.exitCode = 0;
    });
  }
  process.argv = [node, main, ...args];
  try {
    require(main).main();
  } catch (err) {
    threw = true;
    throw err;
  }
}

/** The files of one part: a contiguous run of the project's files, split by size into n runs of about equal bytes. */
function partOf(files, { k, n }) {
  const sizes = files.map((f) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  });
  const total = sizes.reduce((a, b) => a + b, 0);
  const out = [];
  let before = 0;
  for (let i = 0; i < files.length; i++) {
    const middle = before + sizes[i] / 2;
    before += sizes[i];
    const part = total === 0 ? Math.floor((i * n) / files.length) : Math.min(n - 1, Math.floor((middle * n) / total));
    if (part === k) out.push(files[i]);
  }
  return out;
}

/**
 * FileIndexer.visit, resolving a name only where the tier can read it: on a line a callable may cover, or where the
 * name is a declaration's own (which scip-typescript may write as a definition).
 */
function hookVisit(ts, FileIndexer) {
  const K = ts.SyntaxKind;
  // Declarations whose name scip-typescript may write as a definition (a superset of its own list).
  const declarations = new Set([
    K.BindingElement,
    K.ClassDeclaration,
    K.ClassExpression,
    K.EnumDeclaration,
    K.EnumMember,
    K.ExportSpecifier,
    K.FunctionDeclaration,
    K.FunctionExpression,
    K.GetAccessor,
    K.ImportClause,
    K.ImportEqualsDeclaration,
    K.ImportSpecifier,
    K.InterfaceDeclaration,
    K.JsxAttribute,
    K.MethodDeclaration,
    K.MethodSignature,
    K.ModuleDeclaration,
    K.NamespaceExport,
    K.NamespaceImport,
    K.Parameter,
    K.PropertyAssignment,
    K.PropertyDeclaration,
    K.PropertySignature,
    K.SetAccessor,
    K.ShorthandPropertyAssignment,
    K.TypeAliasDeclaration,
    K.TypeParameter,
    K.VariableDeclaration,
  ]);
  // Declarations whose own name is resolved only on a callable line, like a use: an object literal's data property
  // (a function-valued one aside), a shorthand property and a destructured name. Resolving them needs the contextual
  // type of the literal or the type of the pattern, i.e. the overload inference of the call around them (top-level
  // code of test files: `app.request('/', { method: 'POST' })`, hono's largest cost). What they define is never a
  // callable or a type the tier reads: a property's symbol is a per-file `name<N>:` of its own, or the contextual
  // type's member, written as a reference; a destructured name is a term without a body. A use of such a symbol in a
  // body the tier reads is left out whether the index defines it or not (a symbol of the repository's own package:
  // every document defines its module, so the package stays known), so the edges, external uses, callables and
  // relationships the tier reads are those of a run that resolves them.
  const onlyOnCallableLines = (decl) =>
    decl.kind === K.BindingElement ||
    decl.kind === K.ShorthandPropertyAssignment ||
    (decl.kind === K.PropertyAssignment && !ts.isFunctionLike(decl.initializer));
  const callableLines = (sf) => {
    const lines = new Uint8Array(sf.getLineStarts().length + 1);
    const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line;
    const mark = (n) => lines.fill(1, lineOf(n.getStart(sf)), lineOf(n.end) + 1);
    const walk = (n, top) => {
      if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isConstructorDeclaration(n)) mark(n);
      else if (ts.isVariableDeclaration(n) && n.initializer && ts.isFunctionLike(n.initializer)) mark(n.initializer);
      else if (ts.isAccessor(n) || ts.isMethodSignature(n)) mark(top);
      ts.forEachChild(n, (c) => walk(c, top));
    };
    ts.forEachChild(sf, (c) => walk(c, c));
    return lines;
  };
  FileIndexer.prototype.visit = function visit(n) {
    if (
      ts.isConstructorDeclaration(n) ||
      ts.isIdentifier(n) ||
      ts.isPrivateIdentifier(n) ||
      ts.isStringLiteralLike(n)
    ) {
      const lines = (this.callableLines ??= callableLines(this.sourceFile));
      const ownName = n.parent !== undefined && declarations.has(n.parent.kind) && n.parent.name === n;
      if (
        (ownName && !onlyOnCallableLines(n.parent)) ||
        ts.isConstructorDeclaration(n) ||
        lines[this.sourceFile.getLineAndCharacterOfPosition(n.getStart(this.sourceFile)).line] === 1
      ) {
        const sym = this.getTSSymbolAtLocation(n);
        if (sym) this.visitSymbolOccurrence(n, sym);
      }
    }
    ts.forEachChild(n, (c) => this.visit(c));
  };
}
