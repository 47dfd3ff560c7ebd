/**
 * The right-hand pane for one node: its detail, neighbours (out: what it depends on; in: what depends on it; and
 * what it defines), its summary with a button that generates one, and its reconstructed file.
 */
import { nodePath, type Api, type FileContent, type NodeData, type NodeDetail, type Summary } from './api.ts';
import { colourOf } from './colours.ts';
import { el, errorText, swatch } from './dom.ts';
import { renderFile } from './file-view.ts';

export interface DetailPane {
  /** `inGraph`: the node's element in the merged graph (which syncs hold it, whether it diverges). */
  show(nodeId: string, syncId: string | undefined, inGraph?: NodeData, line?: number): Promise<void>;
  clear(): void;
}

type Neighbour = NodeDetail['neighbors'][number];

function facts(n: NodeDetail['node'], inGraph: NodeData | undefined): HTMLElement {
  const rows: Array<[string, string]> = [
    ['Type', n.type],
    ['Language', n.language || '—'],
    ['Lines', n.line_count.toLocaleString('en-US')],
    ['Size', `${n.size_bytes.toLocaleString('en-US')} bytes`],
    ['Imports', String(n.imports_count)],
    ['Content hash', n.content_hash.slice(0, 12)],
  ];
  if (inGraph) {
    rows.push(['In syncs', String(inGraph.loaded_sync_ids.length)]);
    rows.push(['Divergent', inGraph.divergent ? 'yes: its content differs between the selected syncs' : 'no']);
  }
  return el('dl', { class: 'facts' }, ...rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

export function createDetailPane(root: HTMLElement, api: Api, actions: { focus(nodeId: string): boolean }): DetailPane {
  let current = 0;

  const neighbourList = (title: string, items: Neighbour[], cls: string) => {
    if (items.length === 0) return null;
    const list = el('ul', { class: `neighbours ${cls}` });
    for (const n of [...items].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0) || a.name.localeCompare(b.name))) {
      const label = `${n.name}${n.weight ? ` ×${n.weight}` : ''}`;
      const item = n.node_id.startsWith('src_')
        ? el('button', { type: 'button', class: 'link', title: n.node_id }, label)
        : el('span', { title: n.node_id }, label);
      if (item instanceof HTMLButtonElement) item.addEventListener('click', () => actions.focus(n.node_id));
      list.append(el('li', {}, item));
    }
    return el('section', {}, el('h3', {}, `${title} (${items.length})`), list);
  };

  const summarySection = (nodeId: string, syncId: string | undefined, description: string | null) => {
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

  const fileSection = (
    nodeId: string,
    syncId: string | undefined,
    language: string,
    token: number,
    line: number | undefined,
  ) => {
    const box = el('section', { class: 'file' }, el('h3', {}, 'File'), el('p', { class: 'muted' }, 'Loading…'));
    api
      .get<FileContent>(nodePath(nodeId, 'file'), { sync_id: syncId })
      .then((f) => {
        if (token !== current) return;
        const view = renderFile(f.content, language, f.truncated, line);
        box.lastElementChild?.replaceWith(view);
        if (line !== undefined) view.querySelector('.line-mark')?.scrollIntoView({ block: 'center' });
      })
      .catch((err: unknown) => box.lastElementChild?.replaceWith(el('p', { class: 'error' }, errorText(err))));
    return box;
  };

  return {
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
        summarySection(nodeId, syncId, n.description),
        neighbourList(
          'Depends on',
          deps.filter((x) => x.direction === 'out'),
          'out',
        ),
        neighbourList(
          'Used by',
          deps.filter((x) => x.direction === 'in'),
          'in',
        ),
        neighbourList('Defines', others, 'other'),
        fileSection(nodeId, syncId, n.language, token, line),
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
}
