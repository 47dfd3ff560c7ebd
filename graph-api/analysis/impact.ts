/**
 * Impact of a file: a breadth-first walk over a sync's depends_on edges from the file, against the edges
 * (`dependents`: who depends on it, transitively) or along them (`dependencies`: what it depends on), up to a depth.
 * Each file reached is listed once with its shortest distance and `via`, the file one step closer to the start on
 * one shortest path (so a caller can explain the chain). Sorted by distance, then path.
 */
import type { Direction } from '../../lib/api/routes/graph.ts';
import type { SyncSnapshot } from '../graph/snapshot.ts';
import { indexOf } from './adjacency.ts';

export interface ImpactHit {
  index: number;
  distance: number;
  /** Index of the file one step closer to the start; -1 for distance 1 (the start itself). */
  via: number;
}

export interface ImpactResult {
  hits: ImpactHit[];
  byDistance: number[];
}

/** The walk from file `start` (an index into the snapshot). */
export function walkImpact(snap: SyncSnapshot, start: number, direction: Direction, depth: number): ImpactResult {
  const { out, in: inbound } = indexOf(snap);
  const g = direction === 'dependents' ? inbound : out;
  const seen = new Map<number, number>([[start, -1]]);
  const hits: ImpactHit[] = [];
  const byDistance: number[] = [];
  let frontier = [start];
  for (let d = 1; d <= depth && frontier.length > 0; d++) {
    const next: number[] = [];
    for (const v of frontier) {
      for (let k = g.offsets[v]!; k < g.offsets[v + 1]!; k++) {
        const w = g.targets[k]!;
        if (seen.has(w)) continue;
        seen.set(w, v);
        next.push(w);
        hits.push({ index: w, distance: d, via: d === 1 ? -1 : v });
      }
    }
    if (next.length > 0) byDistance.push(next.length);
    frontier = next;
  }
  hits.sort((a, b) => a.distance - b.distance || cmp(snap.paths[a.index]!, snap.paths[b.index]!));
  return { hits, byDistance };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
