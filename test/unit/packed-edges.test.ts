// The resolver thread's edges cross to the caller packed (engine/symbols/resolve-thread.ts): typed arrays and one
// joined string of ends. Unpacked, they must be the edges given, in order, whatever the refs hold.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { packEdges, packedBuffers, unpackEdges } from '../../engine/symbols/resolve-thread.ts';
import type { SymbolEdge } from '../../engine/symbols/types.ts';

const edge = (from: string, to: string, lines: number[], extra: Partial<SymbolEdge> = {}): SymbolEdge => ({
  label: 'calls',
  from,
  to,
  provenance: 'scope',
  confidence: 1,
  lines,
  count: lines.length,
  ...extra,
});

/** Packed, moved across a message port as the thread moves them (buffers transferred), unpacked. */
const across = (edges: SymbolEdge[]): SymbolEdge[] => {
  const packed = packEdges(edges);
  return unpackEdges(structuredClone(packed, { transfer: packedBuffers(packed) }));
};

describe('packed resolver edges', () => {
  it('come back equal and in order: labels, provenance, confidence, lines, counts', () => {
    const edges = [
      edge('a.go#f:function', 'b.go#g:function', [3, 9], { count: 3 }),
      edge('a.go#f:function', 'b.go#T.m:method', [], { label: 'references', provenance: 'import', confidence: 0.95 }),
      edge('b.go#T:type', 'c.go#I:interface', [], { label: 'implements', provenance: 'hierarchy', count: 1 }),
      edge('c.go#h:function', 'a.go#f:function', [1]),
    ];
    assert.deepEqual(across(edges), edges);
    assert.deepEqual(across([]), []);
  });

  it('keep a ref that holds the separator (a NUL in a key) whole', () => {
    const edges = [
      edge('a.go#f:function', 'weird\0name.go#g:function', [2]),
      edge('x.go#y:function', 'z.go#w:function', []),
    ];
    assert.deepEqual(across(edges), edges);
  });
});
