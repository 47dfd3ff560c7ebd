/**
 * The path of a PHP include/require argument, evaluated from its text as PHP would where it can be: string
 * literals, `__DIR__`, `dirname(__FILE__)`, `dirname(X, levels)`, `DIRECTORY_SEPARATOR`, joined with `.`.
 * - starting from the file's directory (`__DIR__ . '/../x.php'`, `dirname(__DIR__, 2) . '/x.php'`): kind
 *   'include_dir', the spec relative to the file's directory;
 * - literals only (`'lib/x.php'`): kind 'include', resolved as PHP does a relative path (working directory, then the
 *   file's directory);
 * - one base the text cannot tell (a constant such as `APP_ROOT`, a variable) followed by literals: kind 'include'
 *   with the literal tail (an application's base-directory constant, read as the file's directory or the root).
 * null when no literal part is left.
 */
export function phpInclude(text: string): { spec: string; kind: 'include' | 'include_dir' } | null {
  const terms = splitConcat(stripParens(text.trim()));
  if (terms.length === 0) return null;
  const values = terms.map(evaluate);
  const first = values[0]!;
  const literals = (from: number): string | null => {
    let s = '';
    for (const v of values.slice(from)) {
      if (v.type !== 'text') return null;
      s += v.text;
    }
    return s;
  };
  if (first.type === 'dir') {
    const rest = literals(1);
    if (rest === null) return null;
    const spec = `${'../'.repeat(first.up)}${rest.replace(/^\/+/, '')}`;
    return spec === '' ? null : { spec, kind: 'include_dir' };
  }
  if (first.type === 'text') {
    const all = literals(0);
    return all === null || all === '' ? null : { spec: all, kind: 'include' };
  }
  // One unknown base (a constant, $_SERVER['DOCUMENT_ROOT']) and literals: the literal tail. An unknown term further
  // on (`BASE . $name . '/x.php'`) leaves nothing to resolve.
  const tail = literals(1);
  if (tail === null || tail.replace(/^\/+/, '') === '') return null;
  return { spec: tail.replace(/^\/+/, ''), kind: 'include' };
}

type Value = { type: 'text'; text: string } | { type: 'dir'; up: number } | { type: 'file' } | { type: 'unknown' };

function stripParens(t: string): string {
  let s = t;
  while (s.startsWith('(') && s.endsWith(')') && closingParen(s, 0) === s.length - 1) s = s.slice(1, -1).trim();
  return s;
}

/** Index of the parenthesis closing the one at `open` (quotes respected), or -1. */
function closingParen(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === "'" || c === '"') i = endOfString(s, i);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

function endOfString(s: string, start: number): number {
  const q = s[start];
  let i = start + 1;
  while (i < s.length && s[i] !== q) i += s[i] === '\\' ? 2 : 1;
  return i;
}

/**
 * The pieces of `s` between top-level separators: strings are skipped whole, and nothing inside the `open`/`close`
 * brackets splits. Pieces are trimmed.
 */
function splitTopLevel(s: string, isSeparator: (i: number) => boolean, open: string, close: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'" || c === '"') i = endOfString(s, i);
    else if (open.includes(c)) depth++;
    else if (close.includes(c)) depth--;
    else if (depth === 0 && isSeparator(i)) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

/** The operands of top-level `.` concatenations (`,` ends the argument; `.5` is a number, not an operator). */
function splitConcat(s: string): string[] {
  const operator = (i: number) => s[i] === '.' && !/[0-9]/.test(s[i + 1] ?? '');
  return splitTopLevel(s, operator, '([', ')]').filter((t) => t.length > 0);
}

function evaluate(term: string): Value {
  const t = stripParens(term);
  const str = /^'((?:[^'\\]|\\.)*)'$|^"((?:[^"\\$]|\\.)*)"$/s.exec(t);
  if (str) return { type: 'text', text: (str[1] ?? str[2] ?? '').replace(/\\([\\'"])/g, '$1') };
  if (/^__DIR__$/i.test(t)) return { type: 'dir', up: 0 };
  if (/^__FILE__$/i.test(t)) return { type: 'file' };
  if (/^\\?DIRECTORY_SEPARATOR$/.test(t)) return { type: 'text', text: '/' };
  const call = /^\\?dirname\s*\(/i.exec(t);
  if (call && closingParen(t, call[0].length - 1) === t.length - 1) {
    const args = splitArgs(t.slice(call[0].length, -1));
    const inner = evaluate(args[0] ?? '');
    const levels = args[1] === undefined ? 1 : Number(args[1]);
    if (!Number.isInteger(levels) || levels < 1) return { type: 'unknown' };
    if (inner.type === 'file') return { type: 'dir', up: levels - 1 };
    if (inner.type === 'dir') return { type: 'dir', up: inner.up + levels };
  }
  return { type: 'unknown' };
}

/** The top-level arguments of a call's argument list. */
function splitArgs(s: string): string[] {
  return splitTopLevel(s, (i) => s[i] === ',', '(', ')');
}
