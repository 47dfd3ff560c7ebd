/** Deterministic unit vectors for embeddings a test writes straight into file records. */
import { createHash } from 'node:crypto';

/** A pseudo-random unit vector derived from `text` (SHA-256 stream). */
export function hashVector(text: string, dim: number): number[] {
  const out: number[] = [];
  let block = createHash('sha256').update(text).digest();
  while (out.length < dim) {
    for (let i = 0; i + 1 < block.length && out.length < dim; i += 2) out.push(block.readUInt16LE(i) / 65535 - 0.5);
    block = createHash('sha256').update(block).digest();
  }
  const n = Math.hypot(...out);
  return out.map((x) => x / n);
}

/** The unit vector at cosine distance `d` from the unit vector `q`, in the plane of q and r. */
export function atDistance(q: number[], r: number[], d: number): number[] {
  const dot = q.reduce((s, x, i) => s + x * r[i]!, 0);
  const ortho = r.map((x, i) => x - dot * q[i]!);
  const n = Math.hypot(...ortho);
  const cos = 1 - d;
  const sin = Math.sqrt(1 - cos * cos);
  return q.map((x, i) => cos * x + (sin * ortho[i]!) / n);
}
