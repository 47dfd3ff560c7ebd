/**
 * Expands a `use` tree into its paths, at any depth of braces: `a::{b::{c, d as e}, f::*, self}` gives a::b::c,
 * a::b::d, a::f and a. Aliases and globs are dropped from the path.
 */
export function expandUse(text: string): string[] {
  const t = text.replace(/\s+/g, ' ').trim();
  const out: string[] = [];
  expandInto(t, '', out);
  return out;
}

function expandInto(tree: string, prefix: string, out: string[]): void {
  const brace = tree.indexOf('{');
  if (brace === -1) {
    const path = tree
      .replace(/\s+as\s+\w+$/, '')
      .replace(/(::)?\s*\*$/, '')
      .replace(/\s+/g, '');
    if (path === 'self') out.push(prefix.replace(/::$/, ''));
    else if (path !== '') out.push(prefix + path);
    else if (prefix !== '') out.push(prefix.replace(/::$/, ''));
    return;
  }
  const head = tree.slice(0, brace).replace(/\s+/g, '');
  const inner = tree.slice(brace + 1, tree.lastIndexOf('}'));
  let depth = 0;
  let cur = '';
  const parts: string[] = [];
  for (const ch of inner) {
    if (ch === '{') depth++;
    if (ch === '}') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  for (const p of parts) if (p.trim() !== '') expandInto(p.trim(), prefix + head, out);
}
