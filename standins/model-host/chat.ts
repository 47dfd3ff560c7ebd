/**
 * The stand-in's chat model: no language model runs. The reply is a short deterministic paragraph assembled from
 * what the prompt contains (the file header, the definitions found in the file text, the files named in the
 * graph-context section), always starting with STANDIN_MARK so nobody mistakes it for a real summary.
 */

export const STANDIN_MARK = '[stand-in model]';

export interface ChatMessage {
  role: string;
  content: string;
}

export interface PromptFacts {
  path: string | undefined;
  language: string | undefined;
  fileType: string | undefined;
  definitions: string[];
  related: string[];
  chars: number;
  messages: number;
}

const MAX_DEFINITIONS = 8;
const MAX_RELATED = 6;

/** Definition sites across the languages the service parses (first capture group is the name). */
const DEFINITION_PATTERNS: readonly RegExp[] = [
  /\b(?:function\*?|def|fn|func|class|struct|interface|trait|enum|record|object)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)/g,
  /\b(?:type|typealias)\s+([A-Za-z_$][\w$]*)\s*(?:=|<|\bstruct\b|\binterface\b)/g,
  /\b(?:export\s+)?(?:const|let|var|val)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s*)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>/g,
  /^#define\s+([A-Za-z_]\w*)/gm,
];

const HEADER = /^\s*#?\s*(path|file|language|type)\s*:\s*(.+?)\s*$/gim;
const PATH_LIKE = /(?:[\w.-]+\/)*[\w.-]+\.[A-Za-z0-9]{1,8}\b|(?:[\w.-]+\/)+[\w.-]+/g;

function isHeading(line: string): boolean {
  return /^\s*#{1,6}\s+\S/.test(line) || /^\s*[A-Z][\w \t/-]{2,60}:\s*$/.test(line) || /^\s*-{3,}\s*$/.test(line);
}

/** Paths listed in the section(s) whose heading mentions the graph, neighbours, dependencies or imports. */
function graphContext(text: string, self: string | undefined): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (isHeading(line)) {
      inside = /graph|neighbo|depend|import|related|context/i.test(line) && !/^\s*#\s*file:/i.test(line);
      continue;
    }
    if (!inside) continue;
    for (const m of line.matchAll(PATH_LIKE)) {
      const p = m[0];
      if (p !== self && !found.includes(p)) found.push(p);
    }
  }
  return found;
}

export function readPrompt(messages: readonly ChatMessage[]): PromptFacts {
  const user = messages.filter((m) => m.role !== 'system').map((m) => m.content);
  const text = user.join('\n');
  const facts: PromptFacts = {
    path: undefined,
    language: undefined,
    fileType: undefined,
    definitions: [],
    related: [],
    chars: messages.reduce((n, m) => n + m.content.length, 0),
    messages: messages.length,
  };
  for (const m of text.matchAll(HEADER)) {
    const key = (m[1] ?? '').toLowerCase();
    const value = m[2] ?? '';
    if ((key === 'path' || key === 'file') && facts.path === undefined) facts.path = value;
    else if (key === 'language' && facts.language === undefined) facts.language = value;
    else if (key === 'type' && facts.fileType === undefined && /^[\w-]+$/.test(value)) facts.fileType = value;
  }
  const defs: { at: number; name: string }[] = [];
  for (const pattern of DEFINITION_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const name = m[1];
      if (name !== undefined) defs.push({ at: m.index, name });
    }
  }
  defs.sort((a, b) => a.at - b.at);
  for (const d of defs) {
    if (!facts.definitions.includes(d.name)) facts.definitions.push(d.name);
  }
  facts.related = graphContext(text, facts.path);
  return facts;
}

function list(items: readonly string[], max: number): string {
  const shown = items.slice(0, max);
  const rest = items.length - shown.length;
  const head = shown.length <= 1 ? shown.join('') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1) ?? ''}`;
  return rest > 0 ? `${shown.join(', ')} and ${rest} more` : head;
}

/** The reply paragraph. Same prompt, same paragraph. */
export function composeSummary(facts: PromptFacts): string {
  const parts: string[] = [STANDIN_MARK];
  if (facts.path !== undefined) {
    const kind = [facts.language, facts.fileType].filter((x) => x !== undefined).join(' ');
    parts.push(`${facts.path} is a ${kind === '' ? 'file' : `${kind} file`}.`);
  } else {
    parts.push('The prompt names no file.');
  }
  if (facts.definitions.length > 0) {
    parts.push(`It defines ${list(facts.definitions, MAX_DEFINITIONS)}.`);
  } else {
    parts.push('No definitions were recognised in its text.');
  }
  if (facts.related.length > 0) {
    parts.push(`In the graph it is connected to ${list(facts.related, MAX_RELATED)}.`);
  }
  parts.push(`(Built from a ${facts.chars}-character prompt in ${facts.messages} messages; no language model ran.)`);
  return parts.join(' ');
}
