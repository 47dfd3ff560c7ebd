/**
 * Search over files (`/api/graph/search/files`: the file the query names first, then by meaning), chunks and symbols
 * (`/api/graph/search/chunks` and `/api/graph/search/symbols`). Every kind searches the selected source unless "all
 * sources" is ticked (or no source is selected), and every hit names its repository. The kind that fits the query
 * comes first: files for a file name or path, symbols for an identifier, chunks for words. A kind whose route the
 * service does not have (404) is left out quietly; the other kinds still answer. A result that names a node of the
 * shown graph focuses it (and a chunk scrolls its file to the line); a symbol opens its detail (callers, callees,
 * hierarchy) and focuses its file.
 */
import { ApiError, type Api } from './api.ts';
import { colourOf } from './colours.ts';
import { el, errorText, swatch } from './dom.ts';

interface Hit {
  nodeId: string | undefined;
  line: number | undefined;
  title: string;
  detail: string;
  type: string | undefined;
  /** A symbol hit's address (`src_<source_id>:<path>#<key>`): its detail opens in the pane. */
  symbol: string | undefined;
  syncId: string | undefined;
  repository: string | undefined;
}

const KINDS = [
  { kind: 'files', label: 'Files', path: '/api/graph/search/files' },
  { kind: 'chunks', label: 'Chunks', path: '/api/graph/search/chunks' },
  { kind: 'symbols', label: 'Symbols', path: '/api/graph/search/symbols' },
] as const;
type Kind = (typeof KINDS)[number];

/** The kinds in the order that fits the query: a file name or path → files; an identifier → symbols; else chunks. */
export function kindOrder(q: string): Array<Kind['kind']> {
  const t = q.trim();
  if (!/\s/.test(t) && (t.includes('/') || /\.[a-z0-9]{1,5}$/.test(t))) return ['files', 'symbols', 'chunks'];
  if (/^[A-Za-z_$][\w$]*((\.|::|#)[A-Za-z_$][\w$]*)*$/.test(t)) return ['symbols', 'chunks', 'files'];
  return ['chunks', 'symbols', 'files'];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** Reads one result of any of the three kinds, whatever extra fields it carries. */
export function toHit(r: Record<string, unknown>): Hit {
  const nodeId = [r.node_id, r.id].map(str).find((v) => v?.startsWith('src_'));
  const path = str(r.file_path) ?? (nodeId ? nodeId.slice(nodeId.indexOf(':') + 1) : undefined);
  const line = num(r.start_line) ?? num(r.line);
  const symbols = Array.isArray(r.symbols) ? r.symbols.map(str).filter(Boolean) : [];
  const address = str(r.symbol)?.includes('#') ? str(r.symbol) : undefined;
  const title = str(r.name) ?? str(r.symbol) ?? symbols[0] ?? path ?? '(unnamed)';
  const where = [path !== title ? path : undefined, line !== undefined ? `line ${line}` : undefined]
    .filter(Boolean)
    .join(' · ');
  const kind = str(r.kind) ?? str(r.chunk_type);
  const snippet = str((r.snippet as { text?: unknown } | undefined)?.text);
  const detail = [kind, where, (snippet ?? str(r.description))?.slice(0, 160)].filter(Boolean).join(' — ');
  return {
    nodeId,
    line,
    title,
    detail,
    type: str(r.type) ?? str(r.file_type),
    symbol: address,
    syncId: str(r.sync_id),
    repository: str(r.repository),
  };
}

function resultsOf(body: unknown): Array<Record<string, unknown>> {
  const b = body as { results?: unknown; items?: unknown };
  const list = Array.isArray(b.results) ? b.results : Array.isArray(b.items) ? b.items : [];
  return list.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null);
}

export interface SearchPanel {
  run(q: string): Promise<void>;
}

export function createSearch(
  form: HTMLFormElement,
  input: HTMLInputElement,
  out: HTMLElement,
  api: Api,
  actions: {
    focus(nodeId: string, line?: number): boolean;
    openSymbol(address: string, syncId: string | undefined): void;
    sourceId(): string | undefined;
  },
  allSources?: HTMLInputElement,
): SearchPanel {
  const unavailable = new Set<string>();
  let current = 0;

  const run = async (q: string) => {
    const token = ++current;
    if (q.trim() === '') {
      out.replaceChildren();
      return;
    }
    out.replaceChildren(el('p', { class: 'muted' }, 'Searching…'));
    const order = kindOrder(q);
    const kinds = KINDS.filter((k) => !unavailable.has(k.kind)).sort(
      (a, b) => order.indexOf(a.kind) - order.indexOf(b.kind),
    );
    // The selected source by default; every source when asked (or when none is selected).
    const scope = allSources?.checked ? {} : { source_id: actions.sourceId() };
    const answers = await Promise.all(
      kinds.map(async (k) => {
        try {
          return { k, hits: resultsOf(await api.get(k.path, { q, limit: 20, ...scope })).map(toHit) };
        } catch (err) {
          if (err instanceof ApiError && err.status === 404 && k.kind !== 'files') {
            unavailable.add(k.kind);
            return undefined;
          }
          return { k, error: errorText(err) };
        }
      }),
    );
    if (token !== current) return;
    out.replaceChildren(
      ...answers
        .filter((a) => a !== undefined)
        .map((a) => {
          const section = el('section', { class: 'search-kind', 'data-kind': a.k.kind }, el('h3', {}, a.k.label));
          if ('error' in a) section.append(el('p', { class: 'error' }, a.error ?? 'failed'));
          else if (a.hits.length === 0) section.append(el('p', { class: 'muted' }, 'No results.'));
          else {
            const list = el('ul', { class: 'hits' });
            for (const h of a.hits) {
              const button = el(
                'button',
                { type: 'button', class: 'hit' },
                el('span', { class: 'hit-title' }, h.title),
              );
              if (h.type) button.prepend(swatch(colourOf(h.type)));
              if (h.repository) button.append(el('span', { class: 'hit-repo' }, h.repository));
              if (h.detail) button.append(el('span', { class: 'hit-detail' }, h.detail));
              button.addEventListener('click', () => {
                // A symbol opens its own detail (callers, callees, hierarchy); its file is focused in the graph.
                if (h.symbol) {
                  if (h.nodeId) actions.focus(h.nodeId, h.line);
                  actions.openSymbol(h.symbol, h.syncId);
                  return;
                }
                if (!h.nodeId || !actions.focus(h.nodeId, h.line)) button.classList.add('absent');
              });
              list.append(el('li', {}, button));
            }
            section.append(list);
          }
          return section;
        }),
    );
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    clearTimeout(timer);
    void run(input.value);
  });
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => void run(input.value), 350);
  });
  allSources?.addEventListener('change', () => void run(input.value));
  return { run };
}
