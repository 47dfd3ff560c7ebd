/**
 * Spec graph rule 1, over per-sync snapshots given newest sync first:
 * - one node per (source_id, file_path); its fields come from the newest requested sync that contains it
 *   (latest_sync_id); loaded_sync_ids lists the requested syncs containing it, newest first; divergent is true when
 *   their content_hash values differ;
 * - one edge per (source node, target node) over the depends_on edges of the requested syncs: weight is the sum of
 *   the per-sync weights, weight_max the largest, loaded_sync_ids the syncs that have the edge, newest first.
 * The response is assembled as a string: at 10k nodes and 40k edges building objects and stringifying them costs
 * more than the merge itself.
 */
import type { SyncSnapshot } from './snapshot.ts';

export interface MergedGraph {
  /** `{"nodes":[...],"edges":[...],"meta":` without the meta object and closing brace. */
  head: string;
  nodeCount: number;
  edgeCount: number;
}

export function mergeSnapshots(snapshots: readonly SyncSnapshot[]): MergedGraph {
  // Node keys: source id + NUL + path (NUL cannot occur in either).
  const nodeIndex = new Map<string, number>();
  const nodeSource: string[] = [];
  const nodePath: string[] = [];
  const nodeSnap: number[] = []; // index of the snapshot holding the latest version
  const nodeFile: number[] = []; // file index within that snapshot
  const nodeMask: number[] = []; // bit i: snapshot i contains the node
  const nodeDivergent: boolean[] = [];
  const fileToNode: Int32Array[] = [];
  snapshots.forEach((snap, si) => {
    const map = new Int32Array(snap.paths.length);
    for (let fi = 0; fi < snap.paths.length; fi++) {
      const path = snap.paths[fi]!;
      const key = snap.sourceId + '\u0000' + path;
      let ni = nodeIndex.get(key);
      if (ni === undefined) {
        ni = nodeSource.length;
        nodeIndex.set(key, ni);
        nodeSource.push(snap.sourceId);
        nodePath.push(path);
        nodeSnap.push(si);
        nodeFile.push(fi);
        nodeMask.push(0);
        nodeDivergent.push(false);
      } else if (!nodeDivergent[ni]) {
        const latest = snapshots[nodeSnap[ni]!]!;
        if (latest.hashes[nodeFile[ni]!] !== snap.hashes[fi]) nodeDivergent[ni] = true;
      }
      nodeMask[ni] = nodeMask[ni]! + 2 ** si;
      map[fi] = ni;
    }
    fileToNode.push(map);
  });

  // Edges keyed by from * N + to (exact in a double for any realistic N).
  const n = nodeSource.length;
  const edgeIndex = new Map<number, number>();
  const eKey: number[] = [];
  const eSum: number[] = [];
  const eMax: number[] = [];
  const eMask: number[] = [];
  snapshots.forEach((snap, si) => {
    const map = fileToNode[si]!;
    for (let k = 0; k < snap.edgeFrom.length; k++) {
      const key = map[snap.edgeFrom[k]!]! * n + map[snap.edgeTo[k]!]!;
      const w = snap.edgeWeight[k]!;
      const ei = edgeIndex.get(key);
      if (ei === undefined) {
        edgeIndex.set(key, eKey.length);
        eKey.push(key);
        eSum.push(w);
        eMax.push(w);
        eMask.push(2 ** si);
      } else {
        eSum[ei] = eSum[ei]! + w;
        if (w > eMax[ei]!) eMax[ei] = w;
        eMask[ei] = eMask[ei]! + 2 ** si;
      }
    }
  });

  // Sync id lists per membership mask, built once per distinct mask.
  const idLists = new Map<number, string>();
  const syncList = (mask: number): string => {
    let s = idLists.get(mask);
    if (s === undefined) {
      const ids: string[] = [];
      snapshots.forEach((snap, si) => {
        if (Math.floor(mask / 2 ** si) % 2 === 1) ids.push(snap.syncId);
      });
      s = JSON.stringify(ids);
      idLists.set(mask, s);
    }
    return s;
  };

  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => {
    const sa = nodeSource[a]!;
    const sb = nodeSource[b]!;
    if (sa !== sb) return sa < sb ? -1 : 1;
    const pa = nodePath[a]!;
    const pb = nodePath[b]!;
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  });
  const idJson: string[] = new Array<string>(n);
  const parts: string[] = ['{"nodes":['];
  order.forEach((ni, k) => {
    const snap = snapshots[nodeSnap[ni]!]!;
    const fi = nodeFile[ni]!;
    const id = JSON.stringify(`src_${nodeSource[ni]}:${nodePath[ni]}`);
    idJson[ni] = id;
    parts.push(
      (k === 0 ? '' : ',') +
        `{"data":{"id":${id},"name":${JSON.stringify(snap.names[fi])},"type":${JSON.stringify(snap.types[fi])},` +
        `"domain":${JSON.stringify(snap.domains[fi])},"source_id":"${nodeSource[ni]}",` +
        `"file_path":${JSON.stringify(nodePath[ni])},"loaded_sync_ids":${syncList(nodeMask[ni]!)},` +
        `"latest_sync_id":"${snap.syncId}","divergent":${nodeDivergent[ni] ? 'true' : 'false'}}}`,
    );
  });
  parts.push('],"edges":[');
  const edgeOrder = Array.from({ length: eKey.length }, (_, i) => i).sort((a, b) => eKey[a]! - eKey[b]!);
  edgeOrder.forEach((ei, k) => {
    const key = eKey[ei]!;
    const from = Math.floor(key / n);
    const to = key - from * n;
    parts.push(
      (k === 0 ? '' : ',') +
        `{"data":{"source":${idJson[from]},"target":${idJson[to]},"label":"depends_on",` +
        `"weight":${eSum[ei]},"weight_max":${eMax[ei]},"loaded_sync_ids":${syncList(eMask[ei]!)}}}`,
    );
  });
  parts.push('],"meta":');
  return { head: parts.join(''), nodeCount: n, edgeCount: eKey.length };
}
