/**
 * Names where people type them: every CLI argument that takes a source takes its id or `owner/name`, and every node
 * id is `src_<source id>:<path>` or `owner/name:<path>`. A name is looked up in GET /api/sources (the service has
 * one source per owner/name); an unknown one is a usage error naming it. Anything else goes to the service as typed,
 * which names what is wrong with it.
 */
import { request, type Api } from '../lib/api/client.ts';
import { listSources } from '../lib/api/routes/sources.ts';
import { CliError, EXIT } from './exit.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const OWNER_NAME = /^([^/\s:]+)\/([^/\s:]+)$/;

/** The source id of `ref` (an id, or `owner/name`). */
export async function resolveSource(api: Api, ref: string): Promise<string> {
  const m = OWNER_NAME.exec(ref);
  if (UUID.test(ref) || !m) return ref;
  const [owner, name] = [m[1]!.toLowerCase(), m[2]!.toLowerCase()];
  let cursor: string | undefined;
  do {
    const page = await request(api, listSources, { query: { limit: 200, cursor } });
    const found = page.items.find((s) => s.owner.toLowerCase() === owner && s.name.toLowerCase() === name);
    if (found) return found.id;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  throw new CliError(`source "${ref}": no source has this owner/name (ckg sources lists them)`, EXIT.USAGE);
}

/** The optional source option of a command: undefined stays undefined. */
export async function resolveSourceOption(api: Api, ref: string | undefined): Promise<string | undefined> {
  return ref === undefined ? undefined : resolveSource(api, ref);
}

/** The node id of `ref`: `owner/name:<path>` with the name looked up, anything else (`src_<id>:<path>`) as given. */
export async function resolveNode(api: Api, ref: string): Promise<string> {
  const colon = ref.indexOf(':');
  if (ref.startsWith('src_') || colon <= 0 || !OWNER_NAME.test(ref.slice(0, colon))) return ref;
  return `src_${await resolveSource(api, ref.slice(0, colon))}:${ref.slice(colon + 1)}`;
}
