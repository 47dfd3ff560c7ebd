import type { ChunkType } from '../types.ts';
import type { LineSource, PlannedChunk } from './plan.ts';
import { headerWords, lineGreedy } from './plan.ts';
import { CHUNK_OVERLAP_TOKENS, tokensForWords } from './tokens.ts';

/** A run of lines that should stay together, with the breadcrumb chain and chunk type it carries. */
interface Section {
  start: number;
  end: number;
  chain: string[];
  type: ChunkType;
}

/**
 * Packs consecutive sections into chunks while they fit the budget; a section that alone exceeds the budget is
 * split line-greedy with overlap (its pieces get type 'line' after the first).
 */
function packSections(src: LineSource, sections: Section[], budget: number): PlannedChunk[] {
  const out: PlannedChunk[] = [];
  let i = 0;
  while (i < sections.length) {
    const first = sections[i]!;
    const header = headerWords(src.path, first.chain);
    let words = header;
    for (let l = first.start; l <= first.end; l++) words += src.words[l] ?? 0;
    if (tokensForWords(words) > budget) {
      const pieces = lineGreedy(src, first.start, first.end, header, budget, CHUNK_OVERLAP_TOKENS);
      pieces.forEach(([s, e], k) => {
        out.push({ start: s, end: e, chain: first.chain, type: k === 0 ? first.type : 'line', symbols: [] });
      });
      i++;
      continue;
    }
    let end = first.end;
    let j = i + 1;
    while (j < sections.length) {
      const next = sections[j]!;
      let w = words;
      for (let l = next.start; l <= next.end; l++) w += src.words[l] ?? 0;
      if (tokensForWords(w) > budget) break;
      words = w;
      end = next.end;
      j++;
    }
    out.push({ start: first.start, end, chain: first.chain, type: first.type, symbols: [] });
    i = j;
  }
  return out;
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Text: paragraphs are runs of non-blank lines; each takes the blank lines that follow it. */
export function chunkText(src: LineSource, budget: number): PlannedChunk[] {
  const sections: Section[] = [];
  const chain = [baseName(src.path)];
  let start = 0;
  const n = src.lines.length;
  for (let i = 0; i + 1 < n; i++) {
    // A paragraph ends after the blank lines that follow it, i.e. where a blank line meets a non-blank one.
    if ((src.words[i] ?? 0) === 0 && (src.words[i + 1] ?? 0) > 0 && i >= start) {
      sections.push({ start, end: i, chain, type: 'paragraph' });
      start = i + 1;
    }
  }
  if (start < n) sections.push({ start, end: n - 1, chain, type: 'paragraph' });
  return packSections(src, sections, budget);
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*\r?\n?$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Markdown: a section starts at each ATX heading outside fenced code; its chain is the heading path. */
export function chunkMarkdown(src: LineSource, budget: number): PlannedChunk[] {
  const sections: Section[] = [];
  const stack: Array<{ level: number; title: string }> = [];
  const root = baseName(src.path);
  let start = 0;
  let chain = [root];
  let type: ChunkType = 'paragraph';
  let fence: string | null = null;
  src.lines.forEach((line, i) => {
    const f = FENCE.exec(line);
    if (fence !== null) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length) fence = null;
      return;
    }
    if (f) {
      fence = f[1]!;
      return;
    }
    const h = HEADING.exec(line);
    if (!h) return;
    if (i > start) sections.push({ start, end: i - 1, chain, type });
    const level = h[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, title: (h[2] ?? '').trim() });
    chain = [root, ...stack.map((s) => s.title)];
    type = 'heading';
    start = i;
  });
  if (start < src.lines.length) sections.push({ start, end: src.lines.length - 1, chain, type });
  return packSections(src, sections, budget);
}

/** The fallback for code that could not be parsed: line-greedy with overlap. */
export function chunkLines(src: LineSource, budget: number): PlannedChunk[] {
  if (src.lines.length === 0) return [];
  const chain = [baseName(src.path)];
  return lineGreedy(src, 0, src.lines.length - 1, headerWords(src.path, chain), budget, CHUNK_OVERLAP_TOKENS).map(
    ([start, end]) => ({ start, end, chain, type: 'line', symbols: [] }),
  );
}
