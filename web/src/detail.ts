/**
 * The right-hand pane for one node: its detail, neighbours (out: what it depends on; in: what depends on it; and
 * the symbols it defines), its summary with a button that generates one, and its reconstructed file. A symbol opens
 * its own view (GET /api/graph/symbol): definition, callers and callees (each a link that walks on to that symbol),
 * type hierarchy, overrides, references and the calls inside it that were not resolved.
 */
import {
  nodePath,
  type Api,
  type Completeness,
  type FileContent,
  type NodeData,
  type NodeDetail,
  type RelatedSymbol,
  type Summary,
  type SymbolDetail,
} from './api.ts';
import { colourOf } from './colours.ts';
import { el, errorText, swatch } from './dom.ts';
import { renderFile } from './file-view.ts';

export interface DetailPane {
  /** `inGraph`: the node's element in the merged graph (which syncs hold it, whether it diverges). */
  show(nodeId: string, syncId: string | undefined, inGraph?: NodeData, line?: number): Promise<void>;
  /** A symbol's view (`src_<source_id>:<path>#<key>`). */
  showSymbol(address: string, syncId: string | undefined): Promise<void>;
  clear(): void;
}

type Neighbour = NodeDetail['neighbors'][number];

function facts(n: NodeDetail['node'], inGraph: NodeData | undefined): HTMLElement {
  const rows: Array<[string, string]> = [
    ['Type', n.type],
    ['Language', n.language || '—'],
    ['Lines', (n.line_count ?? 0).toLocaleString('en-US')],
    ['Size', `${(n.size_bytes ?? 0).toLocaleString('en-US')} bytes`],
    ['Imports', String(n.imports_count ?? 0)],
    ['Content hash', (n.content_hash ?? '').slice(0, 12)],
  ];
  if (inGraph) {
    rows.push(['In syncs', String(inGraph.loaded_sync_ids.length)]);
    rows.push(['Divergent', inGraph.divergent ? 'yes: its content differs between the selected syncs' : 'no']);
  }
  return el('dl', { class: 'facts' }, ...rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

/** Links the detail pane's lists follow: a file node focuses it in the graph, a symbol opens its detail. */
interface Links {
  focus(nodeId: string): void;
  symbol(address: string, syncId: string | undefined): void;
}

const neighbourList = (links: Links, title: string, items: Neighbour[], cls: string, syncId?: string) => {
  if (items.length === 0) return null;
  const list = el('ul', { class: `neighbours ${cls}` });
  for (const n of [...items].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0) || a.name.localeCompare(b.name))) {
    const label = `${n.name}${n.weight ? ` ×${n.weight}` : ''}`;
    const isSymbol = n.node_id.startsWith('src_') && n.node_id.includes('#');
    const item = n.node_id.startsWith('src_')
      ? el('button', { type: 'button', class: isSymbol ? 'link symbol-link' : 'link', title: n.node_id }, label)
      : el('span', { title: n.node_id }, label);
    if (item instanceof HTMLButtonElement) {
      item.addEventListener('click', () => (isSymbol ? links.symbol(n.node_id, syncId) : links.focus(n.node_id)));
    }
    list.append(el('li', {}, item));
  }
  return el('section', {}, el('h3', {}, `${title} (${items.length})`), list);
};

const completenessText = (c: Completeness) =>
  c.status === 'exact'
    ? 'exact'
    : `lower bound: ${c.reasons.map((r) => `${r.count} ${r.reason.replace(/_/g, ' ')}`).join(', ')}`;

const relatedList = (
  links: Links,
  title: string,
  items: RelatedSymbol[],
  total: number | undefined,
  syncId: string,
  cls: string,
  completeness?: Completeness,
) => {
  if (items.length === 0 && completeness === undefined) return null;
  const list = el('ul', { class: `neighbours symbols ${cls}` });
  for (const r of items) {
    const sites = r.lines.length > 0 ? ` · lines ${r.lines.join(', ')}` : '';
    const button = el(
      'button',
      { type: 'button', class: 'link symbol-link', title: `${r.id}\nresolved by ${r.provenance} (${r.confidence})` },
      `${r.key}`,
    );
    button.addEventListener('click', () => links.symbol(r.id, syncId));
    list.append(
      el(
        'li',
        {},
        button,
        el('span', { class: 'muted' }, ` ${r.file_path}:${r.line} · ${r.provenance} ${r.confidence}${sites}`),
      ),
    );
  }
  const head = el('h3', {}, `${title} (${total ?? items.length})`);
  const note = completeness
    ? el('p', { class: 'muted completeness', 'data-status': completeness.status }, completenessText(completeness))
    : null;
  return el('section', { 'data-relation': cls }, head, ...(note ? [note] : []), list);
};

/** The file's cached summary and a button that has the model write it (again). */
const summarySection = (api: Api, nodeId: string, syncId: string | undefined, description: string | null) => {
  const text = el('p', { class: 'summary-text' }, description ?? 'No summary yet.');
  const button = el('button', { type: 'button', id: 'generate-summary' }, description ? 'Regenerate' : 'Generate');
  button.addEventListener('click', () => {
    button.disabled = true;
    text.textContent = 'Generating…';
    api
      .get<Summary>(nodePath(nodeId, 'summary'), { sync_id: syncId, force: 'true' })
      .then((s) => {
        text.textContent =
          s.summary ??
          (s.source === 'no_content' ? 'The file has no content to summarise.' : 'The model gave no summary.');
        text.dataset.source = s.source;
      })
      .catch((err: unknown) => (text.textContent = `Summary failed: ${errorText(err)}`))
      .finally(() => (button.disabled = false));
  });
  return el('section', { class: 'summary' }, el('h3', {}, 'Summary ', button), text);
};

/** The symbol's uses the resolver could not tie to a definition, with why. */
const unresolvedSection = (unresolved: SymbolDetail['unresolved']) =>
  unresolved.length === 0
    ? null
    : el(
        'section',
        { 'data-relation': 'unresolved' },
        el('h3', {}, `Not resolved (${unresolved.length})`),
        el(
          'ul',
          { class: 'neighbours' },
          ...unresolved.map((u) => el('li', {}, `${u.text} · line ${u.line} · ${u.reason.replace(/_/g, ' ')}`)),
        ),
      );

/** The file's text, highlighted, loaded after the pane is shown (dropped if the pane moved on meanwhile). */
const fileSection = (
  api: Api,
  nodeId: string,
  syncId: string | undefined,
  language: string,
  stillShown: () => boolean,
  line: number | undefined,
) => {
  const box = el('section', { class: 'file' }, el('h3', {}, 'File'), el('p', { class: 'muted' }, 'Loading…'));
  api
    .get<FileContent>(nodePath(nodeId, 'file'), { sync_id: syncId })
    .then((f) => {
      if (!stillShown()) return;
      const view = renderFile(f.content, language, f.truncated, line);
      box.lastElementChild?.replaceWith(view);
      if (line !== undefined) view.querySelector('.line-mark')?.scrollIntoView({ block: 'center' });
    })
    .catch((err: unknown) => box.lastElementChild?.replaceWith(el('p', { class: 'error' }, errorText(err))));
  return box;
};

export function createDetailPane(
  root: HTMLElement,
  api: Api,
  actions: { focus(nodeId: string, line?: number): boolean },
): DetailPane {
  let current = 0;

  // The pane's own methods (set below), used by the links it renders.
  let openSymbol: (address: string, syncId: string | undefined) => void = () => undefined;
  const links: Links = {
    focus: (nodeId) => void actions.focus(nodeId),
    symbol: (address, syncId) => openSymbol(address, syncId),
  };

  const pane: DetailPane = {
    async show(nodeId, syncId, inGraph, line) {
      const token = ++current;
      root.replaceChildren(el('p', { class: 'muted' }, 'Loading…'));
      let detail: NodeDetail;
      try {
        detail = await api.get<NodeDetail>(nodePath(nodeId), { sync_id: syncId });
      } catch (err) {
        if (token === current) root.replaceChildren(el('p', { class: 'error' }, errorText(err)));
        return;
      }
      if (token !== current) return;
      const n = detail.node;
      const deps = detail.neighbors.filter((x) => x.rel_type === 'depends_on');
      const others = detail.neighbors.filter((x) => x.rel_type !== 'depends_on');
      const parts: Array<HTMLElement | null> = [
        el('header', { class: 'node-head' }, swatch(colourOf(n.type)), el('h2', { id: 'detail-name' }, n.name)),
        el('p', { class: 'path', title: n.id }, n.id.slice(n.id.indexOf(':') + 1)),
        facts(n, inGraph),
        summarySection(api, nodeId, syncId, n.description ?? null),
        neighbourList(
          links,
          'Depends on',
          deps.filter((x) => x.direction === 'out'),
          'out',
        ),
        neighbourList(
          links,
          'Used by',
          deps.filter((x) => x.direction === 'in'),
          'in',
        ),
        neighbourList(links, 'Defines', others, 'other', n.sync_id),
        fileSection(api, nodeId, syncId, n.language ?? '', () => token === current, line),
      ];
      root.replaceChildren(...parts.filter((p) => p !== null));
    },
    async showSymbol(address, syncId) {
      const token = ++current;
      root.replaceChildren(el('p', { class: 'muted' }, 'Loading…'));
      let d: SymbolDetail;
      try {
        d = await api.get<SymbolDetail>('/api/graph/symbol', { symbol: address, sync_id: syncId });
      } catch (err) {
        if (token === current) root.replaceChildren(el('p', { class: 'error' }, errorText(err)));
        return;
      }
      if (token !== current) return;
      const s = d.symbol;
      const sync = s.sync_id;
      const where = el(
        'button',
        { type: 'button', class: 'link', id: 'symbol-file', title: s.node_id },
        `${s.file_path}:${s.line}-${s.end_line}`,
      );
      where.addEventListener('click', () => actions.focus(s.node_id, s.line));
      const c = d.counts;
      const parts: Array<HTMLElement | null> = [
        el(
          'header',
          { class: 'node-head' },
          el('h2', { id: 'detail-name', 'data-symbol': s.id }, s.name),
          el('span', { class: 'muted kind' }, ` ${s.kind}`),
        ),
        el('p', { class: 'path' }, where),
        s.signature ? el('pre', { class: 'signature' }, s.signature) : null,
        s.doc ? el('p', { class: 'doc' }, s.doc) : null,
        relatedList(links, 'Callers', d.callers, c.callers, sync, 'callers', d.completeness.callers),
        relatedList(links, 'Callees', d.callees, c.callees, sync, 'callees', d.completeness.callees),
        relatedList(links, 'Supertypes', d.supertypes, c.supertypes, sync, 'supertypes'),
        relatedList(links, 'Subtypes', d.subtypes, c.subtypes, sync, 'subtypes'),
        relatedList(links, 'Overrides', d.overrides, c.overrides, sync, 'overrides'),
        relatedList(links, 'Overridden by', d.overridden_by, c.overridden_by, sync, 'overridden-by'),
        relatedList(links, 'References', d.references, c.references, sync, 'references'),
        relatedList(links, 'Referenced by', d.referenced_by, c.referenced_by, sync, 'referenced-by'),
        unresolvedSection(d.unresolved),
      ];
      root.replaceChildren(...parts.filter((p) => p !== null));
    },
    clear() {
      current++;
      root.replaceChildren(
        el('p', { class: 'muted' }, 'Select a node to see its detail, neighbours, summary and file.'),
      );
    },
  };
  openSymbol = (address, syncId) => void pane.showSymbol(address, syncId);
  return pane;
}
