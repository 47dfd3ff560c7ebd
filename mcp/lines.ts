/**
 * A file's text as numbered lines, a range of them, cut at a line boundary to fit `max` characters: the first line
 * is a header (`# <node id> (sync …) lines a-b of n`), notes (`# note: …`) follow the text and say where to go on.
 * Shared by the read_file tool and `ckg cat`.
 */
import type { FileText } from '../lib/api/routes/nodes.ts';
import { MAX_CHARS } from './fit.ts';

export function renderLines(
  id: string,
  file: FileText,
  range: { start: number; end?: number; numbers: boolean },
  max = MAX_CHARS,
): string {
  const lines = file.content.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  const end = Math.min(range.end ?? total, total);
  const width = String(end).length;
  const out: string[] = [];
  let size = 0;
  let last = range.start - 1;
  for (let n = range.start; n <= end; n++) {
    const line = range.numbers ? `${String(n).padStart(width)}\t${lines[n - 1]}` : lines[n - 1]!;
    if (size + line.length + 1 > max && out.length > 0) break;
    out.push(line.length > max ? line.slice(0, max) + ' [line cut]' : line);
    size += line.length + 1;
    last = n;
  }
  const notes: string[] = [];
  if (range.start > total) notes.push(`the file has ${total} lines; start_line ${range.start} is past the end`);
  if (last < end)
    notes.push(`cut to fit: showing lines ${range.start}-${last}; call again with start_line=${last + 1}`);
  if (file.truncated) notes.push('the service cut this file at 5 MiB: lines past that are not available');
  const head = `# ${id} (sync ${file.sync_id}) lines ${range.start}-${last} of ${total}`;
  return [head, ...out, ...notes.map((n) => `# note: ${n}`)].join('\n');
}
