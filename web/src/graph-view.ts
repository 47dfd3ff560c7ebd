/**
 * The merged graph in Cytoscape.js. Positions come from the folder layout (layout.ts), so the first render is one
 * pass over preset positions. Large graphs start zoomed out in the cluster view: one box per folder and the
 * strongest folder-to-folder dependencies (weights summed); zooming in past CLUSTER_ZOOM shows the files and their edges.
 * Node type is the colour, a divergent node has a red border and a diamond shape, edge weight is the width.
 * Edges are hidden while the viewport moves (Cytoscape's hideEdgesOnViewport), which keeps panning smooth.
 */
import cytoscape, { type Core, type ElementDefinition, type NodeSingular } from 'cytoscape';
import type { MergedGraph, NodeData } from './api.ts';
import { DIVERGENT_COLOUR, OTHER_COLOUR, TYPE_COLOURS } from './colours.ts';
import { computeLayout } from './layout.ts';

/** Below this zoom a graph of more than CLUSTER_MIN_NODES shows folders instead of files. */
export const CLUSTER_ZOOM = 0.22;
export const CLUSTER_MIN_NODES = 1500;
const FOCUS_MAX_ZOOM = 1.6;
const PADDING = 30;
/** The folder view draws at most this many folder-to-folder edges (the strongest). */
export const MAX_FOLDER_EDGES = 1500;
const FOCUS_MIN_ZOOM = 0.5;

export interface GraphView {
  /** Draws a graph; resolves once its first frame has been drawn. */
  show(graph: MergedGraph): Promise<void>;
  /** Selects and centres a node with its neighbourhood; false when the node is not in the graph. */
  focus(nodeId: string): boolean;
  node(nodeId: string): NodeData | undefined;
  onSelect(listener: (nodeId: string) => void): void;
  clear(): void;
}

const edgeWidth = (weight: number, max: number) => 0.6 + 3.4 * Math.sqrt(Math.max(0, weight) / Math.max(1, max));

function stylesheet(): cytoscape.StylesheetJson {
  return [
    {
      selector: 'node.file',
      style: {
        width: 14,
        height: 14,
        'background-color': OTHER_COLOUR,
        label: 'data(name)',
        'font-size': 7,
        'min-zoomed-font-size': 9,
        'text-valign': 'bottom',
        'text-margin-y': 2,
        color: '#333',
        'z-index': 10,
      },
    },
    ...Object.entries(TYPE_COLOURS).map(([type, colour]) => ({
      selector: `node.file[type = "${type}"]`,
      style: { 'background-color': colour },
    })),
    {
      selector: 'node.file[?divergent]',
      style: { shape: 'diamond', width: 18, height: 18, 'border-width': 3, 'border-color': DIVERGENT_COLOUR },
    },
    {
      selector: 'node.folder',
      style: {
        shape: 'round-rectangle',
        width: 'data(w)',
        height: 'data(h)',
        'background-color': '#8aa1b9',
        'background-opacity': 0.08,
        'border-width': 1,
        'border-color': '#8aa1b9',
        label: 'data(label)',
        'font-size': 'data(fontSize)',
        'min-zoomed-font-size': 7,
        'text-valign': 'top',
        'text-margin-y': (n: NodeSingular) => n.data('labelOffset') as number,
        'text-max-width': 'data(w)',
        'text-wrap': 'ellipsis',
        color: '#4a5a6a',
        events: 'no',
        'z-index': 1,
      },
    },
    { selector: 'node.folder.cluster', style: { 'background-opacity': 0.35, events: 'yes' } },
    {
      selector: 'edge.dep',
      style: {
        width: 'data(width)',
        'curve-style': 'haystack',
        'line-color': '#9aa5b1',
        opacity: 0.45,
        'z-index': 5,
      },
    },
    {
      selector: 'edge.fedge',
      style: { width: 'data(width)', 'curve-style': 'haystack', 'line-color': '#7d8b99', opacity: 0.35 },
    },
    { selector: '.hidden', style: { display: 'none' } },
    {
      selector: 'node.file.focused',
      style: { width: 26, height: 26, 'border-width': 4, 'border-color': '#222', 'font-size': 10, 'z-index': 30 },
    },
    { selector: 'node.file.near', style: { 'border-width': 2, 'border-color': '#222', 'z-index': 20 } },
    {
      selector: 'edge.out, edge.in',
      style: {
        'curve-style': 'straight',
        'target-arrow-shape': 'triangle',
        'arrow-scale': 0.8,
        opacity: 0.95,
        'z-index': 25,
      },
    },
    // After the focus styles, so a focused divergent node keeps its red border.
    {
      selector: 'node.file[?divergent].focused, node.file[?divergent].near',
      style: { 'border-color': DIVERGENT_COLOUR },
    },
    { selector: 'edge.out', style: { 'line-color': '#d1495b', 'target-arrow-color': '#d1495b' } },
    { selector: 'edge.in', style: { 'line-color': '#2e86ab', 'target-arrow-color': '#2e86ab' } },
  ];
}

interface Elements {
  folders: ElementDefinition[];
  /** File nodes and their dependency edges. */
  files: ElementDefinition[];
  /** Summed weights of the dependencies between two folders, keyed `a\nb`. */
  folderEdges: Map<string, number>;
  /** The layout's bounds: x0, y0, x1, y1. */
  bounds: [number, number, number, number];
}

/** The folder boxes, the file nodes and their edges of a laid-out graph (edges whose ends are missing left out). */
function elementsOf(
  graph: MergedGraph,
  layout: ReturnType<typeof computeLayout>,
  byId: Map<string, NodeData>,
): Elements {
  const maxWeight = graph.edges.reduce((m, e) => Math.max(m, e.data.weight), 1);
  const folders: ElementDefinition[] = [];
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const f of layout.folders) {
    const fontSize = Math.min(160, Math.max(12, f.w / 9));
    folders.push({
      group: 'nodes',
      data: { id: f.id, label: f.label, w: f.w, h: f.h, fontSize, labelOffset: fontSize * 1.2 + 4 },
      position: { x: f.x, y: f.y },
      classes: 'folder',
    });
    [x0, y0] = [Math.min(x0, f.x - f.w / 2), Math.min(y0, f.y - f.h / 2)];
    [x1, y1] = [Math.max(x1, f.x + f.w / 2), Math.max(y1, f.y + f.h / 2)];
  }
  const files: ElementDefinition[] = [];
  for (const n of graph.nodes) {
    files.push({ group: 'nodes', data: n.data, position: layout.positions.get(n.data.id)!, classes: 'file' });
  }
  const folderEdges = new Map<string, number>();
  graph.edges.forEach((e, i) => {
    const d = e.data;
    if (!byId.has(d.source) || !byId.has(d.target)) return;
    files.push({
      group: 'edges',
      data: {
        id: `e${i}`,
        source: d.source,
        target: d.target,
        weight: d.weight,
        width: edgeWidth(d.weight, maxWeight),
      },
      classes: 'dep',
    });
    const a = layout.folderOf.get(d.source)!;
    const b = layout.folderOf.get(d.target)!;
    if (a !== b) folderEdges.set(`${a}\n${b}`, (folderEdges.get(`${a}\n${b}`) ?? 0) + d.weight);
  });
  return { folders, files, folderEdges, bounds: [x0, y0, x1, y1] };
}

/**
 * The folder view's edges: the strongest folder-to-folder dependencies only. The Go standard library has 10k folder
 * pairs, as many edges as files, which would cost the folder view its speed and say little at that distance.
 */
function folderEdgeElements(folderEdges: Map<string, number>, shown: boolean): ElementDefinition[] {
  const strongest = [...folderEdges].sort((p, q) => q[1] - p[1]).slice(0, MAX_FOLDER_EDGES);
  const maxFolder = strongest[0]?.[1] ?? 1;
  return strongest.map(([key, weight], i) => {
    const [source, target] = key.split('\n') as [string, string];
    return {
      group: 'edges',
      data: { id: `f${i}`, source, target, weight, width: 2 + 18 * Math.sqrt(weight / maxFolder) },
      classes: shown ? 'fedge' : 'fedge hidden',
    };
  });
}

/** Marks `node`, its edges and neighbours, and moves the view onto them. */
function focusOn(cy: Core, node: NodeSingular): void {
  cy.batch(() => {
    cy.elements('.focused, .near, .out, .in').removeClass('focused near out in');
    node.addClass('focused');
    node.outgoers('edge').addClass('out');
    node.incomers('edge').addClass('in');
    node.neighborhood('node').addClass('near');
  });
  const around = node.closedNeighborhood();
  const box = around.boundingBox();
  const pad = 80;
  // Fit the neighbourhood, but never closer than FOCUS_MAX_ZOOM (a lone node would fill the screen) nor, for a
  // neighbourhood spread over the whole graph, farther than where the node's label is still readable.
  const fit = Math.min(cy.width() / (box.w + 2 * pad), cy.height() / (box.h + 2 * pad));
  const zoom = Math.max(Math.min(fit, FOCUS_MAX_ZOOM), FOCUS_MIN_ZOOM);
  cy.stop();
  cy.animate({ zoom, center: { eles: zoom === fit ? around : node }, duration: 300 });
}

export function createGraphView(container: HTMLElement): GraphView {
  let cy: Core | undefined;
  let byId = new Map<string, NodeData>();
  let clustered = false;
  let clusterable = false;
  const selectListeners: Array<(id: string) => void> = [];

  /** File nodes and their edges, added to Cytoscape the first time the file view is needed. */
  let pendingFiles: ElementDefinition[] | undefined;

  const setClustered = (on: boolean) => {
    if (!cy || on === clustered) return;
    clustered = on;
    const instance = cy;
    instance.batch(() => {
      if (!on && pendingFiles) {
        instance.add(pendingFiles);
        pendingFiles = undefined;
      } else {
        instance.elements('node.file, edge.dep').toggleClass('hidden', on);
      }
      instance.elements('edge.fedge').toggleClass('hidden', !on);
      instance.nodes('node.folder').toggleClass('cluster', on);
    });
  };

  const clear = () => {
    cy?.destroy();
    cy = undefined;
    pendingFiles = undefined;
    byId = new Map();
  };

  return {
    show(graph) {
      clear();
      byId = new Map(graph.nodes.map((n) => [n.data.id, n.data]));
      const sources = new Set(graph.nodes.map((n) => n.data.source_id));
      const layout = computeLayout(
        graph.nodes.map((n) => n.data),
        sources.size > 1,
      );
      clusterable = graph.nodes.length > CLUSTER_MIN_NODES;
      const { folders, files, folderEdges, bounds } = elementsOf(graph, layout, byId);
      const [x0, y0, x1, y1] = bounds;
      // The zoom at which the preset layout will fit the container decides the first view: a large graph that
      // fits only below CLUSTER_ZOOM starts as folders, and its files are added when they are first needed.
      const fitZoom = Math.min(
        (container.clientWidth - 2 * PADDING) / Math.max(1, x1 - x0),
        (container.clientHeight - 2 * PADDING) / Math.max(1, y1 - y0),
      );
      clustered = clusterable && fitZoom < CLUSTER_ZOOM;
      const fedges = clusterable ? folderEdgeElements(folderEdges, clustered) : [];
      if (clustered) for (const f of folders) f.classes = 'folder cluster';
      pendingFiles = clustered ? files : undefined;

      const instance = cytoscape({
        container,
        elements: clustered ? [...folders, ...fedges] : [...folders, ...files, ...fedges],
        style: stylesheet(),
        layout: { name: 'preset', fit: true, padding: PADDING },
        minZoom: 0.01,
        maxZoom: 4,
        pixelRatio: 1,
        hideEdgesOnViewport: true,
        textureOnViewport: false,
        motionBlur: false,
        boxSelectionEnabled: false,
        autoungrabify: true,
      });
      cy = instance;
      performance.mark('graph-built');
      instance.on('zoom', () => {
        // Not while an animation moves the view (a focus would flip the view on its way), and with some hysteresis
        // so that a wheel resting at the threshold does not flip it back and forth.
        if (!clusterable || instance.animated()) return;
        const z = instance.zoom();
        if (clustered && z >= CLUSTER_ZOOM) setClustered(false);
        else if (!clustered && z < CLUSTER_ZOOM * 0.8) setClustered(true);
      });
      instance.on('tap', 'node.file', (e) => selectListeners.forEach((l) => l((e.target as NodeSingular).id())));
      instance.on('tap', 'node.folder.cluster', (e) => {
        instance.animate({ fit: { eles: e.target as NodeSingular, padding: 40 }, duration: 250 });
      });
      return new Promise<void>((resolve) => instance.one('render', () => resolve()));
    },
    focus(nodeId) {
      if (!cy || !byId.has(nodeId)) return false;
      setClustered(false);
      const node = cy.getElementById(nodeId);
      if (node.empty() || !node.hasClass('file')) return false;
      focusOn(cy, node);
      return true;
    },
    node: (nodeId) => byId.get(nodeId),
    onSelect: (l) => selectListeners.push(l),
    clear,
  };
}
