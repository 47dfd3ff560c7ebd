/**
 * The breadcrumb header every chunk's content begins with: exactly three '\n'-terminated lines,
 * `# file: <path>`, `# in: <ancestor chain>`, and an empty line. Line breaks inside the path or chain are replaced by
 * spaces so the header always has three lines and `reconstruct` can strip it.
 */
export const CHAIN_SEPARATOR = ' > ';

function oneLine(s: string): string {
  return s.replace(/[\r\n]/g, ' ');
}

export function breadcrumb(path: string, chain: readonly string[]): string {
  return `# file: ${oneLine(path)}\n# in: ${oneLine(chain.join(CHAIN_SEPARATOR))}\n\n`;
}

/** Offset of the body in a chunk's content (just after the third '\n'). */
export function bodyOffset(content: string): number {
  let at = -1;
  for (let i = 0; i < 3; i++) {
    at = content.indexOf('\n', at + 1);
    if (at === -1) return content.length;
  }
  return at + 1;
}
