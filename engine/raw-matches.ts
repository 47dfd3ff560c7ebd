/**
 * A query's matches over a tree as offsets, without a JS node object per capture (issue 28's speed target).
 *
 * node-tree-sitter's `Query.matches` turns every captured node into a SyntaxNode: a BigInt id, a Map lookup, an
 * object, and a weak reference with a finalizer registered in the tree's node cache. On the Go standard library
 * the symbols query captures ~3.3 million nodes; making those objects cost about as much as running the query, and
 * their finalizers a good part of the parse threads' garbage collection. The binding's own `_matches` (what
 * `Query.matches` calls) answers the capture names and, per node, six numbers in its transfer buffer: the node's id
 * (two words), its start byte, start row and column, and its alias. A match set here keeps those numbers, gives
 * start offsets (the binding's `startIndex` is the start byte / 2: the text is parsed as UTF-16) without a native
 * call, and end offsets or a node object only when asked (one native call each, nothing cached).
 *
 * This reads the binding below its public API, so it checks itself: the first time a process uses it, the same
 * query's public `matches` over the same tree must give the same patterns, capture names and offsets, or the process
 * uses the public API from then on (e.g. after a tree-sitter upgrade that changed the transfer layout). Predicates
 * (#eq?, #match?) are applied as `Query.matches` applies them (the query's own predicate functions, which read only
 * `text`).
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import Parser from 'tree-sitter';

/** The parts of the binding used here (node-tree-sitter's src/*.cc). */
interface Binding {
  Query: unknown;
  NodeMethods: {
    endIndex(tree: Parser.Tree): number;
    namedChildCount(tree: Parser.Tree): number;
  };
  nodeTransferArray: Uint32Array;
}

/** node-tree-sitter's SyntaxNode class (exported by its module, not by its typings). */
const SyntaxNodeClass = (Parser as unknown as { SyntaxNode: new (tree: Parser.Tree) => Parser.SyntaxNode }).SyntaxNode;

/** Node fields in the transfer buffer (node-tree-sitter's NODE_FIELD_COUNT). */
const FIELDS = 6;

type RawMatchesFn = (
  this: Parser.Query,
  tree: Parser.Tree,
  startRow: number,
  startColumn: number,
  endRow: number,
  endColumn: number,
  startIndex: number,
  endIndex: number,
  matchLimit: number,
  maxStartDepth: number,
  timeoutMicros: number,
) => [Array<number | string>, Array<number | object | null>];

type Predicate = (captures: Array<{ name: string; node: { text: string } }>) => boolean;

function loadBinding(): { binding: Binding; matches: RawMatchesFn } | null {
  try {
    const require = createRequire(import.meta.url);
    const main = require.resolve('tree-sitter');
    const load = createRequire(main)('node-gyp-build') as (dir: string) => Binding;
    const binding = load(dirname(main));
    const matches = (Parser.Query.prototype as unknown as { _matches?: RawMatchesFn })._matches;
    // The same module instance as the public API's (node-gyp-build loads the addon through require's cache).
    if (binding.Query !== Parser.Query || typeof matches !== 'function') return null;
    if (typeof binding.NodeMethods?.endIndex !== 'function') return null;
    if (typeof binding.NodeMethods.namedChildCount !== 'function') return null;
    return { binding, matches };
  } catch {
    return null;
  }
}

const raw = loadBinding();
/** Null until the first use checked the raw path against the public one; then whether it agreed. */
let rawAgrees: boolean | null = raw === null ? false : null;

/** The matches of one query over one tree; captures are numbered in match order. */
export interface MatchSet {
  readonly matchCount: number;
  pattern(m: number): number;
  /** The match's first capture and one past its last. */
  firstCapture(m: number): number;
  endCapture(m: number): number;
  captureName(k: number): string;
  start(k: number): number;
  end(k: number): number;
  /** 0-based row of the capture's start. */
  row(k: number): number;
  namedChildCount(k: number): number;
  /** The captured node as an object (for the few readers that walk it). */
  node(k: number): Parser.SyntaxNode;
}

/** What both readings keep alike: each match's pattern, where its captures start, and the captures' names. */
abstract class CaptureTable implements MatchSet {
  protected readonly first: number[] = [];
  protected readonly names: string[] = [];
  protected readonly patterns: number[] = [];

  get matchCount(): number {
    return this.patterns.length;
  }
  pattern(m: number): number {
    return this.patterns[m]!;
  }
  firstCapture(m: number): number {
    return this.first[m]!;
  }
  endCapture(m: number): number {
    return this.first[m + 1]!;
  }
  captureName(k: number): string {
    return this.names[k]!;
  }
  abstract start(k: number): number;
  abstract end(k: number): number;
  abstract row(k: number): number;
  abstract namedChildCount(k: number): number;
  abstract node(k: number): Parser.SyntaxNode;
}

/** The public API's matches as a MatchSet. */
class PublicMatchSet extends CaptureTable {
  private readonly nodes: Parser.SyntaxNode[] = [];

  constructor(matches: readonly Parser.QueryMatch[]) {
    super();
    for (const m of matches) {
      this.patterns.push(m.pattern);
      this.first.push(this.names.length);
      for (const c of m.captures) {
        this.names.push(c.name);
        this.nodes.push(c.node);
      }
    }
    this.first.push(this.names.length);
  }

  start(k: number): number {
    return this.nodes[k]!.startIndex;
  }
  end(k: number): number {
    return this.nodes[k]!.endIndex;
  }
  row(k: number): number {
    return this.nodes[k]!.startPosition.row;
  }
  namedChildCount(k: number): number {
    return this.nodes[k]!.namedChildCount;
  }
  node(k: number): Parser.SyntaxNode {
    return this.nodes[k]!;
  }
}

/** The binding's answer kept as numbers (see the file's comment). */
class RawMatchSet extends CaptureTable {
  /** FIELDS numbers per capture. */
  private fields: Uint32Array;
  private readonly ends: Int32Array;

  constructor(
    private readonly b: Binding,
    private readonly tree: Parser.Tree,
    query: Parser.Query,
    text: string,
    returned: Array<number | string>,
    nodes: Array<number | object | null>,
  ) {
    super();
    // Copied at once: the next native call may overwrite the transfer buffer.
    const transfer = b.nodeTransferArray;
    const all = new Uint32Array(nodes.length * FIELDS);
    let offset = 0;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      if (typeof n === 'number') {
        all.set(transfer.subarray(offset, offset + FIELDS), i * FIELDS);
        offset += FIELDS;
      } else if (n !== null && n !== undefined) {
        const o = n as Record<number, number>;
        for (let f = 0; f < FIELDS; f++) all[i * FIELDS + f] = o[f]!;
      } else offset += FIELDS;
    }
    this.fields = all;
    const predicates = (query as unknown as { predicates: readonly Predicate[][] }).predicates;
    // Matches whose pattern has predicates are kept only when they all hold (as Query.matches does).
    let keep = 0;
    let k = 0;
    const names: string[] = [];
    for (let i = 0; i < returned.length;) {
      const pattern = returned[i++] as number;
      const from = k;
      names.length = 0;
      while (i < returned.length && typeof returned[i] === 'string') {
        names.push(returned[i++] as string);
        k++;
      }
      const preds = predicates[pattern];
      if (preds && preds.length > 0) {
        const caps = names.map((name, j) => {
          const at = (from + j) * FIELDS;
          return { name, node: { text: this.textAt(text, at) } };
        });
        if (!preds.every((p) => p(caps))) continue;
      }
      this.patterns.push(pattern);
      this.first.push(keep);
      for (let j = 0; j < names.length; j++) {
        if (keep !== from + j) all.copyWithin(keep * FIELDS, (from + j) * FIELDS, (from + j + 1) * FIELDS);
        this.names.push(names[j]!);
        keep++;
      }
    }
    this.first.push(keep);
    this.fields = all.subarray(0, keep * FIELDS);
    this.ends = new Int32Array(keep).fill(-1);
  }

  /** The text of the node whose fields start at `at` of `fields` (for predicates). */
  private textAt(text: string, at: number): string {
    this.marshal(at);
    return text.slice(this.fields[at + 2]! >>> 1, this.b.NodeMethods.endIndex(this.tree));
  }

  /** Puts a node's fields where the binding's node methods read them. */
  private marshal(at: number): void {
    const t = this.b.nodeTransferArray;
    for (let f = 0; f < FIELDS; f++) t[f] = this.fields[at + f]!;
  }

  start(k: number): number {
    return this.fields[k * FIELDS + 2]! >>> 1;
  }
  end(k: number): number {
    let e = this.ends[k]!;
    if (e === -1) {
      this.marshal(k * FIELDS);
      e = this.ends[k] = this.b.NodeMethods.endIndex(this.tree);
    }
    return e;
  }
  row(k: number): number {
    return this.fields[k * FIELDS + 3]!;
  }
  namedChildCount(k: number): number {
    this.marshal(k * FIELDS);
    return this.b.NodeMethods.namedChildCount(this.tree);
  }
  node(k: number): Parser.SyntaxNode {
    // A plain SyntaxNode (not the language's subclass: no field getters) holding the node's fields; not cached.
    const node = new SyntaxNodeClass(this.tree) as unknown as Record<number, number>;
    for (let f = 0; f < FIELDS; f++) node[f] = this.fields[k * FIELDS + f]!;
    return node as unknown as Parser.SyntaxNode;
  }
}

/** Whether two match sets give the same patterns, capture names and offsets. */
function sameMatches(a: MatchSet, b: MatchSet): boolean {
  if (a.matchCount !== b.matchCount) return false;
  for (let m = 0; m < a.matchCount; m++) {
    if (a.pattern(m) !== b.pattern(m) || a.firstCapture(m) !== b.firstCapture(m)) return false;
    if (a.endCapture(m) !== b.endCapture(m)) return false;
    for (let k = a.firstCapture(m); k < a.endCapture(m); k++) {
      if (a.captureName(k) !== b.captureName(k) || a.start(k) !== b.start(k) || a.end(k) !== b.end(k)) return false;
      if (a.row(k) !== b.row(k)) return false;
      if (a.namedChildCount(k) !== b.namedChildCount(k) || a.node(k).type !== b.node(k).type) return false;
    }
  }
  return true;
}

/** The query's matches over the whole tree of `root` (the tree's root node), `text` being the parsed text. */
export function matchSet(query: Parser.Query, root: Parser.SyntaxNode, text: string): MatchSet {
  if (raw === null || rawAgrees === false) return new PublicMatchSet(query.matches(root));
  const tree = root.tree;
  const transfer = raw.binding.nodeTransferArray;
  const fields = root as unknown as Record<number, number>;
  for (let f = 0; f < FIELDS; f++) transfer[f] = fields[f]!;
  const [returned, nodes] = raw.matches.call(query, tree, 0, 0, 0, 0, 0, 0, 0xffffffff, 0xffffffff, 0);
  const set = new RawMatchSet(raw.binding, tree, query, text, returned, nodes);
  if (rawAgrees === null) {
    // Checked on the first answer that has captures.
    const pub = new PublicMatchSet(query.matches(root));
    if (!sameMatches(set, pub)) {
      rawAgrees = false;
      return pub;
    }
    if (set.matchCount > 0) rawAgrees = true;
  }
  return set;
}

/** Whether this process reads matches through the binding (false: the public API). For tests and benchmarks. */
export function rawMatchesInUse(): boolean {
  return rawAgrees !== false && raw !== null;
}
