/**
 * Spec graph rule 5: a file's text from its chunks. Each chunk's content starts with the three-line breadcrumb
 * (`# file: <path>`, `# in: <chain>`, blank line) that is stripped; chunks are joined in chunk_index order, and the
 * leading lines of chunk N that chunk N-1 already covered (start_line <= previous end_line) are dropped. The result
 * is cut at `capBytes` (on a UTF-8 character boundary) with truncated=true.
 *
 * Same rule as engine/'s reconstruct(); kept here with the byte cap so the read path does not load the
 * parse engine (tree-sitter) into the graph component.
 */
export interface ChunkText {
  chunk_index: number;
  content: string;
  start_line: number;
  end_line: number;
}

export const FILE_CAP_BYTES = 5_242_880;

/** Offset just past the breadcrumb's third line break (the whole content when it has fewer). */
function bodyOffset(content: string): number {
  let at = -1;
  for (let i = 0; i < 3; i++) {
    at = content.indexOf('\n', at + 1);
    if (at === -1) return content.length;
  }
  return at + 1;
}

/** Offset just past the first `lines` line breaks of `body` (the whole body when it has fewer). */
function skipLines(body: string, lines: number): number {
  let at = -1;
  for (let i = 0; i < lines; i++) {
    at = body.indexOf('\n', at + 1);
    if (at === -1) return body.length;
  }
  return at + 1;
}

/** Cuts a string to at most `maxBytes` of UTF-8 without splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

export function reconstruct(
  chunks: readonly ChunkText[],
  capBytes = FILE_CAP_BYTES,
): { content: string; truncated: boolean } {
  const ordered = [...chunks].sort((a, b) => a.chunk_index - b.chunk_index);
  const parts: string[] = [];
  let bytes = 0;
  let lastEnd = 0;
  for (const chunk of ordered) {
    let body = chunk.content.slice(bodyOffset(chunk.content));
    const overlap = lastEnd - chunk.start_line + 1;
    if (overlap > 0) body = body.slice(skipLines(body, overlap));
    lastEnd = Math.max(lastEnd, chunk.end_line);
    const size = Buffer.byteLength(body, 'utf8');
    if (bytes + size > capBytes) {
      parts.push(cutUtf8(body, capBytes - bytes));
      return { content: parts.join(''), truncated: true };
    }
    parts.push(body);
    bytes += size;
  }
  return { content: parts.join(''), truncated: false };
}
