/**
 * The precise tier's reading of real indexer output (issue 29): scip-typescript and scip-python (installed by the
 * stack: scripts/stack/indexers.sh, paths in .stack/env) run on small fixtures through the same runner the precise
 * worker uses, and the edges derived from their index are the ones the fixtures hold: calls with their lines and
 * counts, a function used as a value as a reference, a method through self, external uses with their package
 * monikers. Limits: a wall limit that is too short ends the run as a timeout, not an exception.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTree } from '../support/git-repos.ts';
import {
  inferredTsconfig,
  installedIndexers,
  runIndexer,
  type PreciseLanguage,
} from '../../activities/precise/indexers.ts';
import protobuf from 'protobufjs';
import { readScipIndex, ROLE_DEFINITION } from '../../engine/precise/scip.ts';
import { derivePrecise } from '../../engine/precise/derive.ts';
import { parseDescriptors, parseScipSymbol, type EngineDefinition } from '../../engine/precise/edges.ts';
import { directImplementations, hierarchyLabel } from '../../engine/precise/relations.ts';
import { assembleIndex, planRerun, type IndexLayout } from '../../activities/precise/incremental.ts';

const TS_FILES: Record<string, string> = {
  'tsconfig.json':
    '{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "ESNext" }, "include": ["src"] }\n',
  'src/util.ts': [
    'export function helper(x: number): number {',
    '  return x * 2;',
    '}',
    'export function twice(x: number): number {',
    '  return helper(helper(x));',
    '}',
    '',
  ].join('\n'),
  'src/app.ts': [
    "import { helper, twice } from './util';",
    'export class App {',
    '  run(): number {',
    '    return twice(helper(1));',
    '  }',
    '  pick(): (x: number) => number {',
    '    return helper;',
    '  }',
    '}',
    '',
  ].join('\n'),
};
const TS_DEFS = new Map<string, EngineDefinition[]>([
  [
    'src/util.ts',
    [
      { key: 'helper:function', name: 'helper', kind: 'function', line: 1, end_line: 3 },
      { key: 'twice:function', name: 'twice', kind: 'function', line: 4, end_line: 6 },
    ],
  ],
  [
    'src/app.ts',
    [
      { key: 'App:class', name: 'App', kind: 'class', line: 2, end_line: 9 },
      { key: 'App.run:method', name: 'run', kind: 'method', line: 3, end_line: 5 },
      { key: 'App.pick:method', name: 'pick', kind: 'method', line: 6, end_line: 8 },
    ],
  ],
]);

const PY_FILES: Record<string, string> = {
  'pkg/__init__.py': '',
  'pkg/util.py': [
    'def helper(x):',
    '    return x * 2',
    '',
    '',
    'class Greeter:',
    '    def greet(self, name):',
    '        return self.format(name)',
    '',
    '    def format(self, name):',
    '        return "hi " + name',
    '',
  ].join('\n'),
  'pkg/app.py': [
    'import os',
    'from pkg.util import helper, Greeter',
    '',
    '',
    'def main():',
    '    g = Greeter()',
    '    print(os.path.join("a", "b"))',
    '    return helper(len(g.greet("x")))',
    '',
  ].join('\n'),
};
const PY_DEFS = new Map<string, EngineDefinition[]>([
  [
    'pkg/util.py',
    [
      { key: 'helper:function', name: 'helper', kind: 'function', line: 1, end_line: 2 },
      { key: 'Greeter:class', name: 'Greeter', kind: 'class', line: 5, end_line: 10 },
      { key: 'Greeter.greet:method', name: 'greet', kind: 'method', line: 6, end_line: 7 },
      { key: 'Greeter.format:method', name: 'format', kind: 'method', line: 9, end_line: 10 },
    ],
  ],
  ['pkg/app.py', [{ key: 'main:function', name: 'main', kind: 'function', line: 5, end_line: 8 }]],
]);

/**
 * The installed `language` indexer on `files` written to a temporary folder, with the tier's limits: `use` gets the
 * folder and a runner that indexes it into the named output (`extra` options over the defaults) and returns the index
 * bytes once the run succeeded; both temporary folders are removed afterwards.
 */
async function onFixture<T>(
  language: PreciseLanguage,
  files: Record<string, string>,
  use: (root: string, indexInto: (output: string, extra?: Partial<IndexerOptions>) => Promise<Buffer>) => Promise<T>,
): Promise<T> {
  const bin = installedIndexers()[language];
  assert.ok(bin, `the stack installs the ${language} indexer (CKG_SCIP_* in .stack/env)`);
  const root = mkdtempSync(join(tmpdir(), 'ckg-precise-src-'));
  const scratch = mkdtempSync(join(tmpdir(), 'ckg-precise-run-'));
  try {
    writeTree(root, files);
    return await use(root, async (name, extra = {}) => {
      const output = join(scratch, name);
      const run = await runIndexer({
        language,
        bin,
        root,
        output,
        scratch,
        limits: { wallMs: 120_000, memoryMb: 2048 },
        allowDependencies: false,
        version: 'test',
        project: 'fixture',
        ...extra,
      });
      assert.ok(run.ok, `${language} indexer: ${run.failure} ${run.tail}`);
      return readFileSync(output);
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

type IndexerOptions = Parameters<typeof runIndexer>[0];

/** A fixture file's lines, as derivePrecise reads them. */
const linesIn = (root: string) => (path: string) => readFileSync(join(root, path), 'utf8').split('\n');

function index(language: PreciseLanguage, files: Record<string, string>, defs: Map<string, EngineDefinition[]>) {
  return onFixture(language, files, async (root, run) =>
    derivePrecise(readScipIndex(await run('index.scip')), defs, linesIn(root)),
  );
}

const edgeList = (r: Awaited<ReturnType<typeof index>>) =>
  r.edges.map(
    (e) => `${e.label} ${e.from} -> ${e.to} ${e.lines.join(',')} x${e.count} ${e.provenance} ${e.confidence}`,
  );

describe('precise tier: scip-typescript output read into symbol edges', () => {
  let r: Awaited<ReturnType<typeof index>>;
  before(async () => {
    r = await index('typescript', TS_FILES, TS_DEFS);
  });

  it('names the indexer and the files it covered', () => {
    assert.equal(r.tool.name, 'scip-typescript');
    assert.deepEqual(r.covered, ['src/app.ts', 'src/util.ts']);
  });

  it('indexes a file once when tsconfig projects overlap, and writes no hover signatures', async () => {
    // A solution tsconfig whose two projects both hold src/ (as hono's build and spec projects do).
    const files = {
      ...TS_FILES,
      'tsconfig.json':
        '{ "files": [], "references": [{ "path": "./tsconfig.a.json" }, { "path": "./tsconfig.b.json" }] }\n',
      'tsconfig.a.json': '{ "compilerOptions": { "strict": true, "composite": true }, "include": ["src/util.ts"] }\n',
      'tsconfig.b.json': '{ "compilerOptions": { "strict": true, "composite": true }, "include": ["src"] }\n',
    };
    await onFixture('typescript', files, async (root, run) => {
      const bytes = await run('index.scip');
      // The documents and each definition's documentation (SymbolInformation field 3), read with a schema of our own.
      const Index = protobuf.Root.fromJSON({
        nested: {
          Index: { fields: { documents: { rule: 'repeated', type: 'Document', id: 2 } } },
          Document: {
            fields: { relative_path: { type: 'string', id: 1 }, symbols: { rule: 'repeated', type: 'Info', id: 3 } },
          },
          Info: {
            fields: { symbol: { type: 'string', id: 1 }, documentation: { rule: 'repeated', type: 'string', id: 3 } },
          },
        },
      }).lookupType('Index');
      const raw = Index.toObject(Index.decode(bytes), { arrays: true }) as {
        documents: Array<{ relative_path: string; symbols: Array<{ symbol: string; documentation: string[] }> }>;
      };
      assert.deepEqual(raw.documents.map((d) => d.relative_path).sort(), ['src/app.ts', 'src/util.ts']);
      const helper = raw.documents.flatMap((d) => d.symbols).find((x) => x.symbol.endsWith('/helper().'));
      assert.ok(helper, 'helper is defined');
      assert.ok(!helper.documentation.join('\n').includes('(x: number): number'), helper.documentation.join('\n'));
      // Calls are read as before.
      const derived = derivePrecise(readScipIndex(bytes), TS_DEFS, linesIn(root));
      assert.deepEqual(edgeList(derived), edgeList(r));
    });
  });

  it('writes calls with their lines and counts, and a function used as a value as a reference', () => {
    assert.deepEqual(edgeList(r), [
      'calls src/app.ts#App.run:method -> src/util.ts#helper:function 4 x1 scip 1',
      'calls src/app.ts#App.run:method -> src/util.ts#twice:function 4 x1 scip 1',
      'calls src/util.ts#twice:function -> src/util.ts#helper:function 5 x2 scip 1',
      'references src/app.ts#App.pick:method -> src/util.ts#helper:function 7 x1 scip 1',
    ]);
    assert.equal(r.matched, 4);
  });

  it('reads the same edges from two processes resolving only the names inside callables as from one resolving all', async () => {
    // Two overlapping projects (each file indexed once), top-level code (a table, a test callback) whose uses no
    // callable holds, and a function with a call and an external use (Number#toFixed).
    const files = {
      ...TS_FILES,
      'tsconfig.json':
        '{ "files": [], "references": [{ "path": "./tsconfig.a.json" }, { "path": "./tsconfig.b.json" }] }\n',
      'tsconfig.a.json': '{ "compilerOptions": { "strict": true, "composite": true }, "include": ["src/util.ts"] }\n',
      'tsconfig.b.json': '{ "compilerOptions": { "strict": true, "composite": true }, "include": ["src"] }\n',
      'src/top.ts': [
        "import { helper, twice } from './util';",
        'export const table = [helper(1), twice(2)];',
        'declare function describe(name: string, body: () => void): void;',
        "describe('x', () => { twice(helper(3)); });",
        'export function fmt(n: number): string {',
        '  const pad = 3;',
        '  return twice(n).toFixed(pad);',
        '}',
        // Top-level data properties, a destructured name and a shorthand property (resolved by the tier's run only
        // where a callable can hold them), a function-valued property, and uses of them inside a callable.
        'export const config = { size: 2, scale: (n: number) => twice(n) };',
        'export const { size } = config;',
        'export const opts = { size };',
        'export function grow(n: number): number {',
        '  return config.scale(n) + config.size + size + opts.size;',
        '}',
        '',
      ].join('\n'),
    };
    const defs = new Map([
      ...TS_DEFS,
      [
        'src/top.ts',
        [
          { key: 'fmt:function', name: 'fmt', kind: 'function', line: 5, end_line: 8 },
          { key: 'grow:function', name: 'grow', kind: 'function', line: 12, end_line: 14 },
        ],
      ],
    ]);
    await onFixture('typescript', files, async (root, indexInto) => {
      const run = async (name: string, extra: Partial<IndexerOptions>) => readScipIndex(await indexInto(name, extra));
      const full = await run('full.scip', {});
      const tier = await run('tier.scip', { processes: 2, usesInCallables: true });
      const a = derivePrecise(full, defs, linesIn(root));
      const b = derivePrecise(tier, defs, linesIn(root));
      // The documents in scip-typescript's own order, whichever process wrote them.
      assert.deepEqual(
        tier.documents.map((d) => d.relative_path),
        full.documents.map((d) => d.relative_path),
      );
      assert.deepEqual(edgeList(b), edgeList(a));
      assert.deepEqual(b.external, a.external);
      assert.deepEqual([b.covered, b.callables, b.matched], [a.covered, a.callables, a.matched]);
      assert.ok(
        edgeList(b).includes('calls src/top.ts#fmt:function -> src/util.ts#twice:function 7 x1 scip 1'),
        edgeList(b).join('\n'),
      );
      assert.ok(
        b.external.some((x) => x.symbol.includes('toFixed')),
        JSON.stringify(b.external),
      );
      // The top-level uses (lines 2 and 4) were resolved by the full run only.
      const usesOnLine = (idx: typeof full, line: number) =>
        idx.documents
          .find((d) => d.relative_path === 'src/top.ts')!
          .occurrences.filter((o) => o.range[0] === line - 1 && o.symbol.endsWith('/helper().')).length;
      assert.deepEqual([usesOnLine(full, 2), usesOnLine(full, 4)], [1, 1]);
      assert.deepEqual([usesOnLine(tier, 2), usesOnLine(tier, 4)], [0, 0]);
      // The data property, the destructured name and the shorthand property outside every callable are defined by
      // the full run only; the function-valued property by both.
      const definedOnLine = (idx: typeof full, line: number) =>
        idx.documents
          .find((d) => d.relative_path === 'src/top.ts')!
          .occurrences.filter((o) => o.range[0] === line - 1 && (o.symbol_roles & ROLE_DEFINITION) !== 0)
          .map((o) => (o.symbol.startsWith('local ') ? 'local' : o.symbol.slice(o.symbol.lastIndexOf('/') + 1)));
      assert.deepEqual(
        [9, 10, 11].map((l) => definedOnLine(full, l)),
        [['config.', 'size0:', 'scale0:', 'local'], ['local'], ['opts.', 'size1:']],
      );
      assert.deepEqual(
        [9, 10, 11].map((l) => definedOnLine(tier, l)),
        [['config.', 'scale0:', 'local'], [], ['opts.']],
      );
    });
  });
});

describe('precise tier: SCIP relationships read into hierarchy edges', () => {
  it('writes implements, inherits and the nearest override from scip-typescript, not the inherited ones', async () => {
    const files = {
      'tsconfig.json': TS_FILES['tsconfig.json']!,
      'src/shapes.ts': [
        'export interface Shape {',
        '  area(): number;',
        '}',
        'export class Square implements Shape {',
        '  area(): number {',
        '    return 4;',
        '  }',
        '}',
        'export class Big extends Square {',
        '  area(): number {',
        '    return 16;',
        '  }',
        '}',
        '',
      ].join('\n'),
    };
    const defs = new Map<string, EngineDefinition[]>([
      [
        'src/shapes.ts',
        [
          { key: 'Shape:interface', name: 'Shape', kind: 'interface', line: 1, end_line: 3 },
          { key: 'Shape.area:method', name: 'area', kind: 'method', line: 2, end_line: 2 },
          { key: 'Square:class', name: 'Square', kind: 'class', line: 4, end_line: 8 },
          { key: 'Square.area:method', name: 'area', kind: 'method', line: 5, end_line: 7 },
          { key: 'Big:class', name: 'Big', kind: 'class', line: 9, end_line: 13 },
          { key: 'Big.area:method', name: 'area', kind: 'method', line: 10, end_line: 12 },
        ],
      ],
    ]);
    const r = await index('typescript', files, defs);
    assert.deepEqual(
      edgeList(r).filter((e) => !e.startsWith('calls ') && !e.startsWith('references ')),
      [
        'implements src/shapes.ts#Square:class -> src/shapes.ts#Shape:interface  x1 scip 1',
        'inherits src/shapes.ts#Big:class -> src/shapes.ts#Square:class  x1 scip 1',
        'overrides src/shapes.ts#Big.area:method -> src/shapes.ts#Square.area:method  x1 scip 1',
        'overrides src/shapes.ts#Square.area:method -> src/shapes.ts#Shape.area:method  x1 scip 1',
      ],
    );
  });

  it('keeps the direct part of a relation and labels it by the engine kinds', () => {
    const rel = new Map([
      ['C', new Set(['B', 'A', 'I'])],
      ['B', new Set(['A'])],
      ['A', new Set(['I'])],
      ['X', new Set(['Y'])],
      ['Y', new Set(['X'])],
    ]);
    assert.deepEqual(Object.fromEntries(directImplementations(rel)), {
      C: ['B'],
      B: ['A'],
      A: ['I'],
      X: ['Y'],
      Y: ['X'],
    });
    assert.equal(hierarchyLabel('class', 'interface'), 'implements');
    assert.equal(hierarchyLabel('struct', 'interface'), 'implements');
    assert.equal(hierarchyLabel('interface', 'interface'), 'inherits');
    assert.equal(hierarchyLabel('class', 'class'), 'inherits');
    assert.equal(hierarchyLabel('method', 'method'), 'overrides');
    assert.equal(hierarchyLabel('function', 'class'), null);
  });
});

describe('precise tier: scip-python output read into symbol edges', () => {
  let r: Awaited<ReturnType<typeof index>>;
  before(async () => {
    r = await index('python', PY_FILES, PY_DEFS);
  });

  it('resolves calls through imports and self', () => {
    assert.deepEqual(edgeList(r), [
      'calls pkg/app.py#main:function -> pkg/util.py#Greeter.greet:method 8 x1 scip 1',
      'calls pkg/app.py#main:function -> pkg/util.py#helper:function 8 x1 scip 1',
      'calls pkg/util.py#Greeter.greet:method -> pkg/util.py#Greeter.format:method 7 x1 scip 1',
    ]);
  });

  it('keeps external uses with their package monikers', () => {
    const join = r.external.find((x) => x.from === 'pkg/app.py#main:function' && x.symbol.includes('join'));
    assert.ok(join, JSON.stringify(r.external.map((x) => x.symbol)));
    assert.equal(join.moniker.scheme, 'scip-python');
    assert.equal(join.moniker.manager, 'python');
    assert.match(join.moniker.descriptor, /join\(\)\.$/);
    assert.deepEqual(join.lines, [7]);
  });
});

// Java: javac with the semanticdb plugin (annotation processing off, nothing on the classpath) and scip-java's
// index-semanticdb. A missing dependency (org.missing.Dep) is a type error javac tolerates: the rest is indexed.
const JAVA_FILES: Record<string, string> = {
  'src/main/java/demo/Util.java': [
    'package demo;',
    '',
    'public class Util {',
    '  public static int helper(int x) {',
    '    return x * 2;',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/main/java/demo/App.java': [
    'package demo;',
    '',
    'import java.util.function.IntUnaryOperator;',
    'import org.missing.Dep;',
    '',
    'public class App {',
    '  private final int base;',
    '',
    '  public App(int base) {',
    '    this.base = base;',
    '  }',
    '',
    '  public int run() {',
    '    return Util.helper(base) + twice(1);',
    '  }',
    '',
    '  int twice(int x) {',
    '    IntUnaryOperator f = Util::helper;',
    '    return f.applyAsInt(x) + new App(x).base + Dep.value();',
    '  }',
    '}',
    '',
  ].join('\n'),
};

const JAVA_DEFS = new Map<string, EngineDefinition[]>([
  [
    'src/main/java/demo/Util.java',
    [
      { key: 'Util:class', name: 'Util', kind: 'class', line: 3, end_line: 7 },
      { key: 'Util.helper:method', name: 'helper', kind: 'method', line: 4, end_line: 6 },
    ],
  ],
  [
    'src/main/java/demo/App.java',
    [
      { key: 'App:class', name: 'App', kind: 'class', line: 6, end_line: 21 },
      { key: 'App.App:constructor', name: 'App', kind: 'constructor', line: 9, end_line: 11 },
      { key: 'App.run:method', name: 'run', kind: 'method', line: 13, end_line: 15 },
      { key: 'App.twice:method', name: 'twice', kind: 'method', line: 17, end_line: 20 },
    ],
  ],
]);

describe('precise tier: scip-java output read into symbol edges', () => {
  it('writes calls (a constructor too) and a method reference, past a missing dependency', async () => {
    const r = await index('java', JAVA_FILES, JAVA_DEFS);
    const app = 'src/main/java/demo/App.java#';
    const util = 'src/main/java/demo/Util.java#';
    assert.deepEqual(edgeList(r), [
      `calls ${app}App.run:method -> ${app}App.twice:method 14 x1 scip 1`,
      `calls ${app}App.run:method -> ${util}Util.helper:method 14 x1 scip 1`,
      `calls ${app}App.twice:method -> ${app}App.App:constructor 19 x1 scip 1`,
      `references ${app}App.twice:method -> ${util}Util.helper:method 18 x1 scip 1`,
    ]);
    assert.equal(r.tool.name, 'scip-java');
    assert.deepEqual(r.covered, ['src/main/java/demo/App.java', 'src/main/java/demo/Util.java']);
    const jdk = r.external.find((x) => x.symbol.includes('IntUnaryOperator#applyAsInt'));
    assert.ok(jdk, JSON.stringify(r.external.map((x) => x.symbol)));
  });
});

describe('precise tier: limits and symbols', () => {
  it('reads the typed ranges of the current scip.proto (scip-go 0.2) as the packed ones', () => {
    // Index { metadata { tool_info { name: scip-go } }, documents [{ relative_path: a.go, occurrences: [
    //   { symbol: f(), roles: definition, single_line_range {line 0 omitted, 5, 6}, multi_line_enclosing_range {0, 0 omitted, 2, 1} },
    //   { symbol: g(), roles: 0, multi_line_range {1, 2, 3, 4} } ] }] }  (proto3: zeros are not written)
    const w = protobuf.Writer.create();
    const sub = (field: number, fill: (x: protobuf.Writer) => void) => {
      w.uint32((field << 3) | 2).fork();
      fill(w);
      w.ldelim();
    };
    sub(1, () => sub(2, () => w.uint32(10).string('scip-go')));
    sub(2, () => {
      w.uint32(10).string('a.go');
      sub(2, () => {
        w.uint32(18).string('scip-go gomod m v `m`/f().');
        w.uint32(24).int32(1);
        sub(8, () => w.uint32(16).int32(5).uint32(24).int32(6));
        sub(11, () => w.uint32(24).int32(2).uint32(32).int32(1));
      });
      sub(2, () => {
        w.uint32(18).string('scip-go gomod m v `m`/g().');
        sub(9, () => w.uint32(8).int32(1).uint32(16).int32(2).uint32(24).int32(3).uint32(32).int32(4));
      });
    });
    const index = readScipIndex(w.finish());
    assert.equal(index.tool.name, 'scip-go');
    const [f, g] = index.documents[0]!.occurrences;
    assert.deepEqual([f!.range, f!.enclosing_range, f!.symbol_roles], [[0, 5, 6], [0, 0, 2, 1], 1]);
    assert.deepEqual([g!.range, g!.enclosing_range], [[1, 2, 3, 4], []]);
  });

  it('ends an indexer past its wall limit as a timeout', async () => {
    const bin = installedIndexers().python;
    assert.ok(bin);
    const root = mkdtempSync(join(tmpdir(), 'ckg-precise-src-'));
    const scratch = mkdtempSync(join(tmpdir(), 'ckg-precise-run-'));
    after(() => {
      rmSync(root, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    });
    writeTree(root, PY_FILES);
    const run = await runIndexer({
      language: 'python',
      bin,
      root,
      output: join(scratch, 'index.scip'),
      scratch,
      limits: { wallMs: 50, memoryMb: 2048 },
      allowDependencies: false,
      version: 'test',
      project: 'fixture',
    });
    assert.equal(run.ok, false);
    assert.equal(run.failure, 'timeout');
  });

  it('infers a tsconfig past a large .git folder: allowJs for JavaScript alone, {} once TypeScript is there', () => {
    const root = mkdtempSync(join(tmpdir(), 'ckg-precise-infer-'));
    after(() => rmSync(root, { recursive: true, force: true }));
    // More entries than scip-typescript's own walk visits (1000) before the sources, as a clone's .git can hold.
    const objects: Record<string, string> = {};
    for (let i = 0; i < 1100; i++) objects[`.git/objects/${String(i).padStart(4, '0')}`] = 'x';
    writeTree(root, { ...objects, 'node_modules/x/index.ts': '', 'docs/js/site.js': 'export const a = 1;\n' });
    assert.equal(inferredTsconfig(root), '{"compilerOptions":{"allowJs":true}}\n');
    writeTree(root, { 'src/a.ts': 'export const b = 2;\n' });
    assert.equal(inferredTsconfig(root), '{}\n');
  });

  it('parses SCIP symbols into monikers and descriptors', () => {
    const m = parseScipSymbol('scip-typescript npm @types/node 20.1.0 `fs.d.ts`/readFileSync().');
    assert.deepEqual(m, {
      scheme: 'scip-typescript',
      manager: 'npm',
      package: '@types/node',
      version: '20.1.0',
      descriptor: '`fs.d.ts`/readFileSync().',
    });
    assert.equal(parseScipSymbol('local 12'), null);
    assert.deepEqual(parseDescriptors('a/b/`c.ts`/C#m(+1).'), [
      { name: 'a', suffix: 'namespace' },
      { name: 'b', suffix: 'namespace' },
      { name: 'c.ts', suffix: 'namespace' },
      { name: 'C', suffix: 'type' },
      { name: 'm', suffix: 'method' },
    ]);
  });
});

describe('which tsconfig projects a changed commit reruns (activities/precise/incremental.ts)', () => {
  const project = (name: string, program: string[], start = 0, end = 0) => ({
    name,
    start,
    end,
    program,
    skipped: false,
  });
  const prev = {
    commit: 'a',
    tree: {
      'package.json': 'p1',
      'tsconfig.json': 't1',
      'lib/src/util.ts': 'u1',
      'app/src/main.ts': 'm1',
      'tools/src/cli.ts': 'c1',
      'data.json': 'd1',
      'README.md': 'r1',
    },
    layout: {
      metadata: 2,
      projects: [
        project('lib', ['lib/src/util.ts'], 2, 4),
        project('app', ['app/src/main.ts', 'lib/src/util.ts', 'data.json'], 4, 7),
        project('tools', ['tools/src/cli.ts'], 7, 9),
      ],
      documents: 3,
    } satisfies IndexLayout,
  };
  const tree = (changes: Record<string, string | null>) => {
    const t = new Map(Object.entries(prev.tree));
    for (const [k, v] of Object.entries(changes))
      if (v === null) t.delete(k);
      else t.set(k, v);
    return t;
  };

  it('reruns the projects whose program holds a changed file and reuses the others', () => {
    assert.deepEqual(planRerun(prev, tree({ 'lib/src/util.ts': 'u2' })), { reuse: ['tools'], changed: 1 });
    assert.deepEqual(planRerun(prev, tree({ 'data.json': 'd2' })), { reuse: ['lib', 'tools'], changed: 1 });
    assert.deepEqual(planRerun(prev, tree({ 'README.md': 'r2' })), { reuse: ['lib', 'app', 'tools'], changed: 0 });
  });

  it('reruns everything when a project cannot be judged by its program', () => {
    assert.ok('all' in planRerun(prev, tree({ 'lib/src/more.ts': 'x' })), 'a source added');
    assert.ok('all' in planRerun(prev, tree({ 'tools/src/cli.ts': null })), 'a source removed');
    assert.ok('all' in planRerun(prev, tree({ 'tsconfig.json': 't2' })), 'a config no program holds');
    const { 'package.json': _root, ...withoutRoot } = prev.tree;
    const noPackage = { ...prev, tree: withoutRoot };
    assert.ok('all' in planRerun(noPackage, tree({ 'package.json': null })), 'no package.json at the root');
  });

  it('puts a partial run together with the earlier index in project order', () => {
    const earlier = { bytes: Buffer.from('MMllaaaTT'), layout: prev.layout };
    const run = {
      bytes: Buffer.from('NNAAAA'),
      layout: {
        metadata: 2,
        projects: [
          { ...project('lib', [], 2, 2), skipped: true },
          project('app', ['app/src/main.ts'], 2, 6),
          { ...project('tools', [], 6, 6), skipped: true },
        ],
        documents: 1,
      },
    };
    const whole = assembleIndex(run, earlier)!;
    assert.equal(whole.bytes.toString(), 'NNllAAAATT');
    assert.deepEqual(
      whole.layout.projects.map((p) => [p.name, p.start, p.end, p.program.join(',')]),
      [
        ['lib', 2, 4, 'lib/src/util.ts'],
        ['app', 4, 8, 'app/src/main.ts'],
        ['tools', 8, 10, 'tools/src/cli.ts'],
      ],
    );
    const unknown = { ...run, layout: { ...run.layout, projects: [{ ...project('gone', []), skipped: true }] } };
    assert.equal(assembleIndex(unknown, earlier), null);
  });
});
