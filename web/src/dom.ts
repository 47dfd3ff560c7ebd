/** Tiny DOM helpers (text only: every value from the API goes in as a text node, never as HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string | null | undefined>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} is missing from the page`);
  return e as T;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A small square in a node type's colour (set through CSSOM, so no inline style attribute is needed). */
export function swatch(colour: string): HTMLElement {
  const s = el('span', { class: 'swatch' });
  s.style.background = colour;
  return s;
}
