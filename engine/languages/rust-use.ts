/**
 * Expands a `use` tree into its paths, at any depth of braces: `a::{b::{c, d as e}, f::*, self}` gives a::b::c,
 * a::b::d, a::f and a. Aliases and globs are dropped from the path.
 */
export function expandUse(text: string): string[] {
  return expandUseItems(text).map((item) => item.path);
}

/** One leaf of a `use` tree: its path, the name it binds (`as` alias), and whether it is a glob (`a::*`). */
export interface UseItem {
  path: string;
  alias: string | null;
  glob: boolean;
}

/**
 * Expands a `use` tree into its leaves with their aliases: `a::{b as c, d::*, self}` gives a::b (alias c), a::d
 * (glob) and a (its own name).
 */
export function expandUseItems(text: string): UseItem[] {
  const out: UseItem[] = [];
  itemsInto(text.replace(/\s+/g, ' ').trim(), '', out);
  return out;
}

function itemsInto(tree: string, prefix: string, out: UseItem[]): void {
  const brace = tree.indexOf('{');
  if (brace === -1) {
    const alias = /\s+as\s+(\w+)$/.exec(tree)?.[1] ?? null;
    const glob = /(::)?\s*\*$/.test(tree);
    const path = tree
      .replace(/\s+as\s+\w+$/, '')
      .replace(/(::)?\s*\*$/, '')
      .replace(/\s+/g, '');
    if (path === 'self') out.push({ path: prefix.replace(/::$/, ''), alias, glob });
    else if (path !== '') out.push({ path: prefix + path, alias, glob });
    else if (prefix !== '') out.push({ path: prefix.replace(/::$/, ''), alias, glob });
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
  for (const p of parts) if (p.trim() !== '') itemsInto(p.trim(), prefix + head, out);
}
