/**
 * Snippets of a chunk: the window of up to SNIPPET_LINES body lines, starting at a matching line, that holds the
 * most distinct query terms (earliest on ties; the first lines when nothing matches), with every matching identifier marked. Offsets are UTF-16
 * code units into `text`; `marked` wraps each match in « and ».
 */
import { splitBreadcrumb, tokenMatches, type QueryTerms } from '../../lib/search-terms.ts';

export const SNIPPET_LINES = 5;
const MAX_LINE_CHARS = 240;
const TOKEN = /[\p{L}\p{N}_$]+/gu;

export interface Snippet {
  start_line: number;
  end_line: number;
  text: string;
  highlights: Array<[number, number]>;
  marked: string;
}

export function buildSnippet(content: string, startLine: number, terms: QueryTerms): Snippet {
  const { body } = splitBreadcrumb(content);
  const lines = body.split('\n').map((l) => (l.length > MAX_LINE_CHARS ? l.slice(0, MAX_LINE_CHARS) : l));
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  // Per line: the matching tokens (with their offsets) and the distinct lexemes they match.
  const matches = lines.map((line) => {
    const found: Array<{ start: number; end: number; key: string }> = [];
    for (const m of line.matchAll(TOKEN)) {
      if (tokenMatches(m[0], terms))
        found.push({ start: m.index, end: m.index + m[0].length, key: m[0].toLowerCase() });
    }
    return found;
  });
  let best = 0;
  let bestCount = -1;
  // Windows start at the first line or at a matching line, so a match opens the snippet rather than ending it.
  for (let i = 0; i < lines.length; i++) {
    if (i > 0 && matches[i]!.length === 0) continue;
    const keys = new Set<string>();
    for (let j = i; j < Math.min(lines.length, i + SNIPPET_LINES); j++) for (const m of matches[j]!) keys.add(m.key);
    if (keys.size > bestCount) {
      best = i;
      bestCount = keys.size;
    }
  }
  const end = Math.min(lines.length, best + SNIPPET_LINES);
  let text = '';
  let marked = '';
  const highlights: Array<[number, number]> = [];
  for (let j = best; j < end; j++) {
    const line = lines[j]!;
    let at = 0;
    for (const m of matches[j]!) {
      highlights.push([text.length + m.start, text.length + m.end]);
      marked += line.slice(at, m.start) + '«' + line.slice(m.start, m.end) + '»';
      at = m.end;
    }
    marked += line.slice(at);
    text += line;
    if (j < end - 1) {
      text += '\n';
      marked += '\n';
    }
  }
  return { start_line: startLine + best, end_line: startLine + Math.max(best, end - 1), text, highlights, marked };
}
