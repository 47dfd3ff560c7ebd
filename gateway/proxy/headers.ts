/**
 * Hop-by-hop header filtering (RFC 9110 section 7.6.1) on Node's raw header arrays, so the case, order and
 * repetition (Set-Cookie) of every end-to-end header reach the other side unchanged.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Names listed in the Connection header are hop-by-hop too. */
function connectionTokens(raw: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'connection') continue;
    for (const t of raw[i + 1]!.split(',')) {
      const name = t.trim().toLowerCase();
      if (name) out.add(name);
    }
  }
  return out;
}

/** A flat [name, value, name, value, ...] array without hop-by-hop headers and without names in `drop`. */
export function endToEnd(raw: readonly string[], drop: ReadonlySet<string> = new Set()): string[] {
  const listed = connectionTokens(raw);
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower) || drop.has(lower)) continue;
    out.push(name, raw[i + 1]!);
  }
  return out;
}
