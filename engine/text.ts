/**
 * Bytes to text. Decisions (see docs/engine.md):
 * - a file containing a NUL byte is binary: recorded, never decoded or chunked;
 * - invalid UTF-8 is decoded with U+FFFD replacements and flagged, so exact reconstruction holds for the decoded text;
 * - a byte-order mark is kept in the text, so the text round-trips to the original bytes when the UTF-8 is valid.
 */
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export function isBinary(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) !== -1;
}

export interface Decoded {
  text: string;
  /** True when the bytes were not valid UTF-8 and replacements were made. */
  invalidUtf8: boolean;
}

export function decodeUtf8(bytes: Uint8Array): Decoded {
  try {
    return { text: strict.decode(bytes), invalidUtf8: false };
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return { text: lenient.decode(bytes), invalidUtf8: true };
  }
}

/** Splits on '\n' and keeps each line's terminator ('\r\n' lines keep their '\r'); '' gives no lines. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) break;
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** Number of lines as an editor shows them: a final line without '\n' counts, an empty file has 0. */
export function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  if (text.length > 0 && !text.endsWith('\n')) n++;
  return n;
}

/** Counts '\n'-separated lines directly on bytes (used for files that are not decoded). */
export function countLinesInBytes(bytes: Uint8Array): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n++;
  if (bytes.length > 0 && bytes[bytes.length - 1] !== 10) n++;
  return n;
}
