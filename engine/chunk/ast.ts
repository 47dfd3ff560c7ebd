import type { ChunkType } from '../types.ts';
import type { LineSource, PlannedChunk } from './plan.ts';
import { headerWords, lineGreedy } from './plan.ts';
import { tokensForWords } from './tokens.ts';

/** What the chunker reads of a syntax node: plain numbers and a type, no native node object. */
export interface AstNode {
  type: string;
  startIndex: number;
  /** 0-based row where the node starts. */
  startRow: number;
  /** 0-based last row with content of the node (a node ending at column 0 of a row ends on the row before). */
  endRow: number;
  /** Position among its parent's children (the walker enters a child by it). */
  index: number;
}

/**
 * Walks a syntax tree without materialising node objects: `children()` lists the children of the current node,
 * `enter(i)` moves to child i, `leave()` back to the parent. The chunker only opens the few nodes that are too big
 * for one chunk, so most of the tree is never visited.
 */
export interface AstWalker {
  children(): AstNode[];
  enter(index: number): void;
  leave(): void;
}

/** The part of a tree-sitter TreeCursor the walker uses. */
interface Cursor {
  readonly nodeType: string;
  readonly nodeTypeId: number;
  readonly startIndex: number;
  readonly endIndex: number;
  gotoFirstChild(): boolean;
  gotoNextSibling(): boolean;
  gotoParent(): boolean;
}

/**
 * Where each row of a text starts (UTF-16 offsets, as tree-sitter's indices for a string input): row r spans
 * [starts[r], starts[r + 1]). The offset just after a final '\n' starts a row of its own (tree-sitter puts an
 * index there at that row's column 0).
 */
export function rowStarts(lines: readonly string[]): Int32Array {
  const n = lines.length;
  const endsWithBreak = n > 0 && lines[n - 1]!.endsWith('\n');
  const starts = new Int32Array(endsWithBreak ? n + 1 : Math.max(n, 1));
  let at = 0;
  for (let i = 0; i < n; i++) {
    starts[i] = at;
    at += lines[i]!.length;
  }
  if (endsWithBreak) starts[n] = at;
  return starts;
}

/** The row of offset x (the number of '\n' before it), searching rows from `from` on. */
export function rowOf(starts: Int32Array, x: number, from = 0): number {
  let lo = from;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * An AstWalker over a tree-sitter cursor positioned at the node to chunk (the root). Rows come from the node's
 * offsets and the text's row starts, and type names from a per-walker table by type id: a position or a type name
 * read from the cursor is a native call that allocates an object or a string for every child (measured: a few
 * per cent of a parse thread's time on the Go standard library).
 */
export function cursorWalker(cursor: Cursor, starts: Int32Array): AstWalker {
  const typeNames: string[] = [];
  return {
    children() {
      const out: AstNode[] = [];
      if (!cursor.gotoFirstChild()) return out;
      let index = 0;
      let row = 0;
      do {
        const id = cursor.nodeTypeId;
        const type = (typeNames[id] ??= cursor.nodeType);
        const startIndex = cursor.startIndex;
        const endIndex = cursor.endIndex;
        const startRow = (row = rowOf(starts, startIndex, row));
        const end = rowOf(starts, endIndex, startRow);
        out.push({
          type,
          startIndex,
          startRow,
          endRow: starts[end] === endIndex && end > startRow ? end - 1 : end,
          index: index++,
        });
      } while (cursor.gotoNextSibling());
      cursor.gotoParent();
      return out;
    },
    enter(index) {
      cursor.gotoFirstChild();
      for (let i = 0; i < index; i++) cursor.gotoNextSibling();
    },
    leave() {
      cursor.gotoParent();
    },
  };
}

/** A definition known to the chunker, keyed by `defKey(node)`. */
export interface ChunkDef {
  name: string;
  chunkType: ChunkType;
  /** 0-based row where the definition node starts. */
  row: number;
  /** Label in the breadcrumb chain, e.g. `class Server`. */
  label: string;
}

export function defKey(node: { startIndex: number; type: string }): string {
  return `${node.startIndex}:${node.type}`;
}

interface Frame {
  label: string;
  chunkType: ChunkType;
}

interface Unit {
  start: number;
  end: number;
  nodes: AstNode[];
}

/** Beyond this nesting the chunker stops descending and splits by lines (deeply nested input). */
const MAX_DEPTH = 48;

/**
 * AST-aware chunking without overlap. The file is tiled into units, one per top-level node (lines before a node,
 * comments included, belong to it; nodes sharing a line share a unit), and units are packed greedily within the
 * budget. A unit above the budget is opened: its largest node's children are tiled and packed the same way, the
 * node's definition (if any) joining the breadcrumb chain. A unit that cannot be opened is split by lines.
 * Chunks always tile the whole file, so reconstruction is exact.
 */
export function chunkAst(
  src: LineSource,
  walker: AstWalker,
  defs: ReadonlyMap<string, ChunkDef>,
  rootLabel: string,
  budget: number,
): PlannedChunk[] {
  const n = src.lines.length;
  if (n === 0) return [];
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i]! + (src.words[i] ?? 0);
  const tokens = (s: number, e: number, header: number): number => tokensForWords(header + prefix[e + 1]! - prefix[s]!);
  const defRows = [...defs.values()].sort((a, b) => a.row - b.row);
  const out: Array<{ start: number; end: number; frames: Frame[] }> = [];

  const tile = (s: number, e: number, nodes: AstNode[]): Unit[] => {
    const units: Unit[] = [];
    let cur: Unit | null = null;
    for (const node of nodes) {
      if (node.type.includes('comment')) continue;
      const ns = node.startRow;
      const ne = Math.min(node.endRow, e);
      if (ne < s || ns > e) continue;
      if (cur && ns <= cur.end) {
        cur.end = Math.max(cur.end, ne);
        cur.nodes.push(node);
        continue;
      }
      const start: number = cur ? cur.end + 1 : s;
      cur = { start, end: Math.max(ne, start), nodes: [node] };
      units.push(cur);
    }
    if (units.length === 0) return [{ start: s, end: e, nodes: [] }];
    units[units.length - 1]!.end = e;
    return units;
  };

  const pack = (s: number, e: number, nodes: AstNode[], frames: Frame[], depth: number): void => {
    const chain = [rootLabel, ...frames.map((f) => f.label)];
    const header = headerWords(src.path, chain);
    const units = tile(s, e, nodes);
    let i = 0;
    while (i < units.length) {
      const u = units[i]!;
      if (tokens(u.start, u.end, header) > budget) {
        open(u, frames, depth, header);
        i++;
        continue;
      }
      let j = i;
      while (j + 1 < units.length && tokens(u.start, units[j + 1]!.end, header) <= budget) j++;
      out.push({ start: u.start, end: units[j]!.end, frames });
      i = j + 1;
    }
  };

  const open = (u: Unit, frames: Frame[], depth: number, header: number): void => {
    let node: AstNode | null = null;
    for (const candidate of u.nodes) {
      if (node === null || candidate.endRow - candidate.startRow > node.endRow - node.startRow) node = candidate;
    }
    const lines = (): void => {
      for (const [s, e] of lineGreedy(src, u.start, u.end, header, budget, 0)) out.push({ start: s, end: e, frames });
    };
    if (node === null || depth >= MAX_DEPTH || node.endRow <= node.startRow) return lines();
    walker.enter(node.index);
    try {
      const children = walker.children();
      if (children.length === 0) return lines();
      const def = defs.get(defKey(node));
      const inner = def ? [...frames, { label: def.label, chunkType: def.chunkType }] : frames;
      pack(u.start, u.end, children, inner, depth + 1);
    } finally {
      walker.leave();
    }
  };

  pack(0, n - 1, walker.children(), [], 0);

  let d = 0;
  return out.map(({ start, end, frames }) => {
    while (d < defRows.length && defRows[d]!.row < start) d++;
    const symbols: string[] = [];
    let type: ChunkType | null = null;
    for (let k = d; k < defRows.length && defRows[k]!.row <= end; k++) {
      symbols.push(defRows[k]!.name);
      type ??= defRows[k]!.chunkType;
    }
    type ??= frames.length > 0 ? frames[frames.length - 1]!.chunkType : 'block';
    return { start, end, chain: [rootLabel, ...frames.map((f) => f.label)], type, symbols };
  });
}
