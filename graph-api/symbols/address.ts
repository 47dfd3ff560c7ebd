/**
 * Symbol addresses (issue 28): `src_<source_id>:<file_path>#<key>` (node-id style) or `owner/name:<file_path>#<key>`.
 * The key is the symbol's stable key inside its file (`Router.add_route:method`); a shorter form that names one
 * symbol of the file is accepted too (`Router.add_route`, `add_route`), so people and agents can write what they see.
 * Paths may hold '#': the address splits at its last '#' (keys never hold one).
 */
import { InvalidArgumentError, NotFoundError } from '../../lib/errors.ts';
import { decodeNodeId, isUuid } from '../../lib/node-id.ts';
import type { ReadTx } from '../db/read.ts';

export interface SymbolAddress {
  sourceId: string;
  filePath: string;
  key: string;
}

export function symbolAddress(sourceId: string, filePath: string, key: string): string {
  return `src_${sourceId}:${filePath}#${key}`;
}

/** Parses an address; the `owner/name` form is looked up (404 when no source has that name). */
export async function resolveAddress(tx: ReadTx, text: string, field = 'symbol'): Promise<SymbolAddress> {
  const at = text.lastIndexOf('#');
  if (at <= 0 || at === text.length - 1) {
    throw new InvalidArgumentError(
      field,
      'must look like src_<source_id>:<file_path>#<key> or owner/name:<path>#<key>',
    );
  }
  const key = text.slice(at + 1);
  const head = text.slice(0, at);
  if (head.startsWith('src_') && isUuid(head.slice(4, 40))) {
    const { sourceId, filePath } = decodeNodeId(head, field);
    return { sourceId, filePath, key };
  }
  const m = /^([^/:\s]+)\/([^/:\s]+):(.+)$/s.exec(head);
  if (!m) {
    throw new InvalidArgumentError(
      field,
      'must look like src_<source_id>:<file_path>#<key> or owner/name:<path>#<key>',
    );
  }
  const [, owner, name, filePath] = m;
  const res = await tx.query<{ id: string }>(
    `SELECT id FROM sources WHERE owner = $1 AND name = $2 ORDER BY (source_type = 'github_repo') DESC, created_at
     LIMIT 2`,
    [owner, name],
  );
  if (res.rows.length === 0) throw new NotFoundError('source', `${owner}/${name}`);
  if (res.rows.length > 1) {
    throw new InvalidArgumentError(field, `${owner}/${name} names several sources: use src_<source_id>:...`);
  }
  decodeNodeId(`src_${res.rows[0]!.id}:${filePath!}`, field);
  return { sourceId: res.rows[0]!.id, filePath: filePath!, key };
}

/**
 * The symbol a key names among a file's keys: the exact key, else the one key whose name part (before `:kind` and
 * any `~` disambiguator) is the given text or ends with `.<text>`. Several matches: 400 listing them.
 */
export function matchKey(keys: readonly string[], wanted: string, field = 'symbol'): number | undefined {
  const exact = keys.indexOf(wanted);
  if (exact >= 0) return exact;
  const base = (k: string) => k.replace(/~.*$/, '').replace(/:[a-z_]+$/, '');
  const wantedBase = base(wanted);
  const hits: number[] = [];
  keys.forEach((k, i) => {
    const b = base(k);
    if (b === wantedBase || b.endsWith(`.${wantedBase}`)) hits.push(i);
  });
  if (hits.length === 1) return hits[0];
  // Prefer a whole-chain match over a suffix one (`Router.get` over `Other.Router.get`).
  const whole = hits.filter((i) => base(keys[i]!) === wantedBase);
  if (whole.length === 1) return whole[0];
  if (hits.length > 1) {
    const some = hits.slice(0, 10).map((i) => keys[i]);
    throw new InvalidArgumentError(
      field,
      `names ${hits.length} symbols of the file, give one whole key: ${some.join(', ')}`,
    );
  }
  return undefined;
}
