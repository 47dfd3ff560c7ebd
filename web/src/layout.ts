/**
 * A precomputed layout that stays fast at 10k+ nodes: files are grouped by folder (per source), each folder is a
 * compact grid of its files sorted by name, and folder blocks are shelf-packed in path order, so sibling folders sit
 * side by side. Linear in the number of nodes; no force simulation runs in the browser.
 */
export interface LayoutNode {
  id: string;
  name: string;
  source_id: string;
  file_path: string;
}

export interface FolderBox {
  id: string;
  label: string;
  x: number;
  y: number;
  w: number;
  h: number;
  count: number;
}

export interface Layout {
  positions: Map<string, { x: number; y: number }>;
  /** Node id → folder box id. */
  folderOf: Map<string, string>;
  folders: FolderBox[];
}

export const CELL = 36;
const PAD = 24;
const HEADER = 36;
const GAP = 48;

export function folderOfPath(filePath: string): string {
  const i = filePath.lastIndexOf('/');
  return i < 0 ? '.' : filePath.slice(0, i);
}

export function computeLayout(nodes: readonly LayoutNode[], multiSource: boolean): Layout {
  const groups = new Map<string, { label: string; members: LayoutNode[] }>();
  for (const n of nodes) {
    const dir = folderOfPath(n.file_path);
    const key = `folder:${n.source_id}:${dir}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { label: multiSource ? `${n.source_id.slice(0, 8)}: ${dir}` : dir, members: [] }));
    g.members.push(n);
  }
  const blocks = [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, g]) => {
      const cols = Math.ceil(Math.sqrt(g.members.length));
      const rows = Math.ceil(g.members.length / cols);
      return { id, g, cols, w: cols * CELL + 2 * PAD, h: rows * CELL + 2 * PAD + HEADER };
    });
  const area = blocks.reduce((s, b) => s + (b.w + GAP) * (b.h + GAP), 0);
  const maxBlock = blocks.reduce((m, b) => Math.max(m, b.w), 0);
  const rowWidth = Math.max(maxBlock, Math.sqrt(area) * 1.2);

  const positions = new Map<string, { x: number; y: number }>();
  const folderOf = new Map<string, string>();
  const folders: FolderBox[] = [];
  let x = 0;
  let y = 0;
  let shelf = 0;
  for (const b of blocks) {
    if (x > 0 && x + b.w > rowWidth) {
      x = 0;
      y += shelf + GAP;
      shelf = 0;
    }
    const members = [...b.g.members].sort((p, q) => (p.name < q.name ? -1 : p.name > q.name ? 1 : 0));
    members.forEach((n, i) => {
      positions.set(n.id, {
        x: x + PAD + (i % b.cols) * CELL + CELL / 2,
        y: y + HEADER + PAD + Math.floor(i / b.cols) * CELL + CELL / 2,
      });
      folderOf.set(n.id, b.id);
    });
    folders.push({ id: b.id, label: b.g.label, x: x + b.w / 2, y: y + b.h / 2, w: b.w, h: b.h, count: members.length });
    x += b.w + GAP;
    shelf = Math.max(shelf, b.h);
  }
  return { positions, folderOf, folders };
}
