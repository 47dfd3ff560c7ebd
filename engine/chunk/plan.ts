import { chunkSearchVector } from '../../lib/search-vector.ts';
import type { ChunkInfo, ChunkType } from '../types.ts';
import { breadcrumb } from './breadcrumb.ts';
import { countWords, tokensForWords } from './tokens.ts';

/** A chunk before its content is built: a line range (0-based, inclusive) and its metadata. */
export interface PlannedChunk {
  start: number;
  end: number;
  chain: string[];
  type: ChunkType;
  symbols: string[];
}

/** What every chunker works on: the file's lines (terminators kept) and each line's word count. */
export interface LineSource {
  path: string;
  lines: string[];
  words: number[];
}

export function lineSource(path: string, lines: string[]): LineSource {
  return { path, lines, words: lines.map(countWords) };
}

/** Words of the breadcrumb for this path and chain. */
export function headerWords(path: string, chain: readonly string[]): number {
  return countWords(breadcrumb(path, chain));
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9 || c === 12 || c === 11;
}

/**
 * Words of `header + lines[start..end]` from the per-line counts, without scanning the text again: the header ends
 * with a line break, and a word only spans two lines when the first has no trailing whitespace (no terminator) and
 * the next starts with a non-space, which is subtracted.
 */
function chunkWords(src: LineSource, header: string, start: number, end: number): number {
  let words = countWords(header);
  for (let i = start; i <= end; i++) {
    words += src.words[i] ?? 0;
    if (i > start) {
      const prev = src.lines[i - 1]!;
      const line = src.lines[i]!;
      if (
        prev.length > 0 &&
        line.length > 0 &&
        !isSpace(prev.charCodeAt(prev.length - 1)) &&
        !isSpace(line.charCodeAt(0))
      )
        words--;
    }
  }
  return words;
}

export function materialize(src: LineSource, planned: PlannedChunk[], language: string): ChunkInfo[] {
  return planned.map((p, i) => {
    const header = breadcrumb(src.path, p.chain);
    const content = header + src.lines.slice(p.start, p.end + 1).join('');
    return {
      search_terms: chunkSearchVector(content, p.symbols),
      chunk_index: i,
      content,
      start_line: p.start + 1,
      end_line: p.end + 1,
      token_count: tokensForWords(chunkWords(src, header, p.start, p.end)),
      language,
      chunk_type: p.type,
      symbols: p.symbols,
    };
  });
}

/**
 * Line-greedy packing of lines [start, end]: each chunk takes lines while the estimate (breadcrumb included) stays
 * within the budget, and always at least one new line (a single line above the budget is a chunk of its own).
 * With overlap > 0, each chunk after the first starts with the previous chunk's trailing lines worth at most
 * `overlap` tokens.
 */
export function lineGreedy(
  src: LineSource,
  start: number,
  end: number,
  header: number,
  budget: number,
  overlap: number,
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let from = start;
  let firstNew = start;
  while (firstNew <= end) {
    let words = header;
    for (let i = from; i < firstNew; i++) words += src.words[i] ?? 0;
    let to = firstNew;
    words += src.words[to] ?? 0;
    while (to < end && tokensForWords(words + (src.words[to + 1] ?? 0)) <= budget) {
      to++;
      words += src.words[to] ?? 0;
    }
    out.push([from, to]);
    if (to >= end) break;
    firstNew = to + 1;
    from = firstNew;
    if (overlap > 0) {
      let back = 0;
      // Only overlap when the overlap and the next line still fit together in one chunk.
      const nextWords = header + (src.words[firstNew] ?? 0);
      while (from - 1 > out[out.length - 1]![0]) {
        const w = back + (src.words[from - 1] ?? 0);
        if (tokensForWords(w) > overlap || tokensForWords(nextWords + w) > budget) break;
        back = w;
        from--;
      }
    }
  }
  return out;
}
