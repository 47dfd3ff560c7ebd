/**
 * Results sized for a model's context: every tool answer is at most MAX_CHARS characters of text (about 6k
 * tokens). A list that does not fit is cut and a `note` says how many items were left out and how to get the next
 * ones; nothing is dropped silently.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const MAX_CHARS = 24_000;

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

export function jsonResult(value: unknown): CallToolResult {
  return textResult(JSON.stringify(value, null, 1));
}

/**
 * `base` with `items` under `key`, as many as fit in `max` characters (at least one is always shown, cut to fit when
 * alone). When items are left out, `note` tells the caller the range shown and the `offset` to pass next.
 */
export function fitList(
  base: Record<string, unknown>,
  key: string,
  items: unknown[],
  page: { offset: number; total: number; more?: (end: number) => string },
  max = MAX_CHARS,
): CallToolResult {
  const render = (n: number, note?: string) =>
    JSON.stringify({ ...base, [key]: items.slice(0, n), ...(note ? { note } : {}) }, null, 1);
  const noteFor = (n: number) => {
    const end = page.offset + n;
    return end < page.total
      ? `showing items ${page.offset + 1}-${end} of ${page.total}; ${page.more ? page.more(end) : `call again with offset=${end} for more`}`
      : undefined;
  };
  let text = render(items.length, noteFor(items.length));
  if (text.length <= max) return textResult(text);
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (render(mid, noteFor(mid)).length <= max) lo = mid;
    else hi = mid - 1;
  }
  const n = Math.max(lo, 1);
  text = render(n, noteFor(n));
  if (text.length > max)
    text = text.slice(0, max) + `\n[cut at ${max} characters: the item is larger than a tool answer]`;
  return textResult(text);
}

/** A tool's failure, as the model sees it: the service's code and message (never a stack trace). */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
