/**
 * The symbol graph resolved on the worker holding the clone while the batches are written (issue 28's speed target).
 * The resolver needs every file's facts and import targets, not the vertex ids: on a sync that analyses every file
 * itself (no file reused from an earlier sync), they are all in this process once the last batch is parsed. Each
 * parsed batch hands its files to a resolver thread (engine/symbols/resolve-thread.ts; the facts as the JSON the
 * write stores, parsed on that thread as they come), the thread resolves when the last batch is in and hands the
 * edges over in parts (cut by file path: symbol-parts.ts symbolEdgeCuts) as it passes them, and the write of the
 * last batch writes each part (resolve-symbols.ts writeResolvedGraph) as soon as its own rows are committed and the
 * part is there, while the thread resolves the rest; resolveSymbols then finds its ledger row. Only the edge write
 * waits for the Symbol vertices.
 *
 * The result is the one resolveSymbols computes from the database (the resolver is a pure function of the files):
 * it is used only when every batch was parsed and written by this process and every write stored exactly the files
 * given to the thread (a file whose record could not be written has no facts in the database); otherwise it is
 * dropped and resolveSymbols resolves from the database as before.
 */
import type { FileAnalysis, Tree } from '../../../engine/types.ts';
import {
  importTargets,
  type ResolvedImport,
  type ResolveOutput,
  type SymbolEdge,
} from '../../../engine/symbols/index.ts';
import { ResolverThread, type SymbolFileJson } from '../../../engine/symbols/resolve-thread.ts';
import { symbolEdgeCuts, type ResolvedParts } from './symbol-parts.ts';

/** A part of the edges, handed over by the thread or not yet. */
interface PartSlot {
  promise: Promise<SymbolEdge[]>;
  resolve: (edges: SymbolEdge[]) => void;
  reject: (err: Error) => void;
}

function partSlot(): PartSlot {
  let resolve!: PartSlot['resolve'];
  let reject!: PartSlot['reject'];
  const promise = new Promise<SymbolEdge[]>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Awaited by the last write, or dropped.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** A parsed file's symbol-graph inputs, made once for the thread and the write. */
export interface SymbolInput {
  /** SymbolFacts as JSON (what symbol_facts stores). */
  facts: string;
  imports: ResolvedImport[];
}

export class EarlySymbols {
  private readonly thread = new ResolverThread();
  /** Paths given to the thread, by batch. */
  private readonly given = new Map<number, Set<string>>();
  /** What each batch gave, for its write (dropped once written). */
  private readonly inputs = new Map<number, Map<string, SymbolInput>>();
  /** Batches written with exactly the files given. */
  private readonly written = new Set<number>();
  /** The Symbol vertices the writes made, by SymbolRef. */
  private readonly symbolVertices = new Map<string, string>();
  private valid = true;
  private result: Promise<ResolveOutput> | null = null;
  private cuts: string[] = [];
  private parts: PartSlot[] = [];

  constructor(readonly batches: number) {}

  /**
   * The symbol-graph inputs of a parsed batch's analysed files (by path), handed to the thread; the last batch in
   * starts the resolution. A batch parsed again replaces what it gave.
   */
  parsed(batch: number, tree: Tree, analyses: readonly FileAnalysis[]): void {
    const inputs = new Map<string, SymbolInput>();
    const files: SymbolFileJson[] = [];
    for (const a of analyses) {
      if (!a.symbol_facts && a.symbol_facts_json === undefined) continue;
      const input: SymbolInput = {
        facts: a.symbol_facts_json ?? JSON.stringify(a.symbol_facts),
        imports: a.imports && a.imports.length > 0 ? importTargets(tree, a) : [],
      };
      inputs.set(a.file_path, input);
      files.push({ file_path: a.file_path, language: a.language, facts: input.facts, imports: input.imports });
    }
    this.inputs.set(batch, inputs);
    if (this.valid && !this.result) {
      this.thread.add(batch, files);
      this.given.set(batch, new Set(inputs.keys()));
      if (this.given.size === this.batches) this.start();
    } else this.valid = false;
  }

  /** The inputs a parsed batch gave, by path (the write stores these facts and import targets). */
  inputsOf(batch: number): ReadonlyMap<string, SymbolInput> | undefined {
    return this.inputs.get(batch);
  }

  private start(): void {
    const paths: string[] = [];
    for (const s of this.given.values()) paths.push(...s);
    this.cuts = symbolEdgeCuts(paths);
    this.parts = Array.from({ length: this.cuts.length + 1 }, partSlot);
    this.result = this.thread.resolve({ cuts: this.cuts, onPart: (k, edges) => this.parts[k]?.resolve(edges) });
    // Awaited by the last write, or dropped: a failure then means resolveSymbols resolves from the database.
    this.result.then(
      () => {
        for (const p of this.parts) p.reject(new Error('symbol resolver: a part of the edges never came'));
      },
      (err: unknown) => {
        for (const p of this.parts) p.reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  }

  /**
   * A batch's write committed, with facts stored for exactly these paths and these Symbol vertices (by SymbolRef;
   * undefined: not known, which drops the resolution).
   */
  stored(batch: number, paths: readonly string[], vertices: ReadonlyMap<string, string> | undefined): void {
    this.inputs.delete(batch);
    const given = this.given.get(batch);
    if (!given || !vertices || given.size !== paths.length || !paths.every((p) => given.has(p))) this.valid = false;
    else {
      this.written.add(batch);
      for (const [ref, id] of vertices) this.symbolVertices.set(ref, id);
    }
  }

  /** The Symbol vertices of every batch written, by SymbolRef (what symbolVertices reads from the database). */
  vertices(): ReadonlyMap<string, string> {
    return this.symbolVertices;
  }

  /**
   * The resolution, when every batch was parsed and written here as given; else null. Its edges come in parts (the
   * output's `edges` is empty).
   */
  resolution(): ResolvedParts | null {
    if (!this.valid || this.written.size !== this.batches || !this.result) return null;
    return { cuts: this.cuts, part: (k) => this.parts[k]!.promise, output: this.result };
  }

  /** Files given to the resolver (resolveSymbols' `files`). */
  files(): number {
    let n = 0;
    for (const s of this.given.values()) n += s.size;
    return n;
  }

  close(): void {
    this.valid = false;
    this.thread.close();
  }
}
