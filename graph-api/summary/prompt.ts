/**
 * Spec graph rule 4 (e): the summary prompt. A file header (path, language, line count), the file text, then the
 * graph context grouped by edge type and direction, then the instruction. Budgets (characters) scale with each
 * retry: the file text gets total x FILE_RATIO, the graph context total x NEIGHBOR_RATIO, each neighbour at most
 * NEIGHBOR_CHARS of it.
 */
export interface SummaryBudget {
  totalChars: number;
  fileRatio: number;
  neighborRatio: number;
  neighborChars: number;
  edgeNeighbors: number;
}

export interface ContextNeighbor {
  rel_type: string;
  direction: 'in' | 'out';
  label: string;
  name: string;
  /** Files: path, type, cached description, first lines of the first chunk. */
  file_path?: string;
  type?: string;
  description?: string | null;
  head?: string;
  /** Symbols: kind and line. */
  kind?: string;
  line?: number;
}

export const SYSTEM_PROMPT =
  'You are a senior engineer who explains source files of a code repository to colleagues. ' +
  'You answer with one short paragraph of plain prose, without headings, lists or code.';

export const INSTRUCTION =
  'Write a short paragraph (at most five sentences) that says what this file does and how it relates to the files ' +
  'around it. Return only the paragraph.';

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, Math.max(0, max - 16)) + '\n[... truncated]';
}

function neighborEntry(n: ContextNeighbor, max: number): string {
  if (n.label !== 'File') {
    const where = [n.kind, n.line !== undefined ? `line ${n.line}` : undefined].filter(Boolean).join(', ');
    return cut(`- ${n.label.toLowerCase()} ${n.name}${where ? ` (${where})` : ''}\n`, max);
  }
  let s = `- ${n.file_path ?? n.name} (${n.type ?? 'file'})\n`;
  s += `  description: ${n.description?.trim() || '(none yet)'}\n`;
  if (n.head)
    s +=
      n.head
        .split('\n')
        .map((l) => `  | ${l}`)
        .join('\n') + '\n';
  return cut(s, max);
}

export function buildPrompt(
  file: { file_path: string; language: string; line_count: number },
  text: string,
  neighbors: readonly ContextNeighbor[],
  budget: SummaryBudget,
  scale: number,
): string {
  const total = Math.floor(budget.totalChars * scale);
  const fileBudget = Math.floor(total * budget.fileRatio);
  const neighborBudget = Math.floor(total * budget.neighborRatio);
  const perNeighbor = Math.min(budget.neighborChars, neighborBudget);

  const header = `File: ${file.file_path}\nLanguage: ${file.language || 'unknown'}\nLines: ${file.line_count}\n`;
  const body = `\n--- file text ---\n${cut(text, fileBudget)}\n`;

  const groups = new Map<string, ContextNeighbor[]>();
  for (const n of neighbors) {
    const key = `${n.rel_type} (${n.direction === 'out' ? 'outgoing' : 'incoming'})`;
    const list = groups.get(key) ?? [];
    list.push(n);
    groups.set(key, list);
  }
  let context = '';
  for (const [key, list] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const section = `## ${key}\n` + list.map((n) => neighborEntry(n, perNeighbor)).join('');
    if (context.length + section.length > neighborBudget) {
      context += cut(section, Math.max(0, neighborBudget - context.length));
      break;
    }
    context += section;
  }
  const graph = `\n--- graph context ---\n${context || '(no neighbours in the graph)\n'}`;
  return `${header}${body}${graph}\n${INSTRUCTION}\n`;
}
