import type { ChunkType } from '../types.ts';
import type { LineSource, PlannedChunk } from './plan.ts';
import { headerWords, lineGreedy } from './plan.ts';
import { tokensForWords } from './tokens.ts';

/** The part of a tree-sitter node the chunker reads (a tree-sitter SyntaxNode satisfies it). */
export interface AstNode {
  type: string;
  startIndex: number;
  startPosition: { row: number; column: number };
  endPosition: { row: number; column: number };
  children: AstNode[];
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

function endRow(n: AstNode): number {
  const e = n.endPosition;
  return e.column === 0 && e.row > n.startPosition.row ? e.row - 1 : e.row;
}

/**
 * AST-aware chunking without overlap. The file is tiled into units, one per top-level node (lines before a node,
 * comments included, belong to it; nodes sharing a line share a unit), and units are packed greedily within the
 * budget. A unit above the budget is opened: its largest node's children are tiled and packed the same way, the
 * node's definition (if any) joining the breadcrumb chain. A unit that cannot be opened is split by lines.
 * Chunks always tile the whole file, so reconstruction is exact.
 */
export function chunkAst(
  src: LineSource,
  root: AstNode,
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
      const ns = node.startPosition.row;
      const ne = Math.min(endRow(node), e);
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
      if (node === null || endRow(candidate) - candidate.startPosition.row > endRow(node) - node.startPosition.row)
        node = candidate;
    }
    const children = node?.children ?? [];
    const multiLine = node !== null && endRow(node) > node.startPosition.row;
    if (node === null || depth >= MAX_DEPTH || children.length === 0 || !multiLine) {
      for (const [s, e] of lineGreedy(src, u.start, u.end, header, budget, 0)) out.push({ start: s, end: e, frames });
      return;
    }
    const def = defs.get(defKey(node));
    const inner = def ? [...frames, { label: def.label, chunkType: def.chunkType }] : frames;
    pack(u.start, u.end, children, inner, depth + 1);
  };

  pack(0, n - 1, root.children, [], 0);

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
