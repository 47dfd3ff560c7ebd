/** Parsing of the graph endpoints' parameters; every failure is a 400 naming the parameter. */
import { InvalidArgumentError } from '../../lib/errors.ts';
import { isUuid } from '../../lib/node-id.ts';

/** At most this many syncs per merged-graph request (membership is tracked in a 53-bit mask). */
export const MAX_SYNC_IDS = 50;

export function parseSyncIds(raw: string | string[] | undefined): string[] {
  if (Array.isArray(raw)) throw new InvalidArgumentError('sync_ids', 'must be given once, as a comma-separated list');
  if (raw === undefined || raw.trim() === '') throw new InvalidArgumentError('sync_ids', 'is required');
  const ids: string[] = [];
  for (const part of raw.split(',')) {
    const v = part.trim();
    if (v === '') throw new InvalidArgumentError('sync_ids', 'contains an empty element');
    if (!isUuid(v)) throw new InvalidArgumentError('sync_ids', `${JSON.stringify(v.slice(0, 60))} is not a UUID`);
    const id = v.toLowerCase();
    if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length > MAX_SYNC_IDS)
    throw new InvalidArgumentError('sync_ids', `at most ${MAX_SYNC_IDS} syncs per request`);
  return ids;
}
