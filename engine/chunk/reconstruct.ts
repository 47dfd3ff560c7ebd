import type { ChunkInfo } from '../types.ts';
import { splitLines } from '../text.ts';
import { bodyOffset } from './breadcrumb.ts';

/**
 * Spec graph rule 5: join the chunks in chunk_index order, dropping the leading lines of chunk N that overlap
 * chunk N-1's end_line, after stripping each chunk's three-line breadcrumb. Zero chunks give ''.
 */
export function reconstruct(
  chunks: ReadonlyArray<Pick<ChunkInfo, 'chunk_index' | 'content' | 'start_line' | 'end_line'>>,
): string {
  const ordered = [...chunks].sort((a, b) => a.chunk_index - b.chunk_index);
  const parts: string[] = [];
  let lastEnd = 0;
  for (const chunk of ordered) {
    const body = chunk.content.slice(bodyOffset(chunk.content));
    const overlap = lastEnd - chunk.start_line + 1;
    if (overlap <= 0) {
      parts.push(body);
    } else {
      const lines = splitLines(body);
      parts.push(lines.slice(overlap).join(''));
    }
    lastEnd = Math.max(lastEnd, chunk.end_line);
  }
  return parts.join('');
}
