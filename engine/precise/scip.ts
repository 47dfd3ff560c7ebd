/**
 * Reads a SCIP index (https://github.com/sourcegraph/scip, scip.proto) with protobufjs, the protobuf library the
 * Temporal SDK already brings in. Only the messages and fields the precise tier uses are declared (field numbers as
 * in scip.proto); protobuf skips the others (diagnostics, documentation, signature documents), so reading stays
 * cheap. Positions: SCIP ranges are 0-based [startLine, startChar, endLine, endChar] or, on one line,
 * [line, startChar, endChar]; this module keeps them as written. Newer indexers (scip-go 0.2) write the typed
 * ranges of the current scip.proto instead (Occurrence fields 8-11, SingleLineRange / MultiLineRange messages); they
 * are turned into the same arrays here, so readers see one shape whatever the indexer's protocol revision.
 */
import protobuf from 'protobufjs';

/** SymbolRole bits (scip.proto). */
export const ROLE_DEFINITION = 0x1;
export const ROLE_IMPORT = 0x2;

const SCHEMA = {
  nested: {
    scip: {
      nested: {
        Index: {
          fields: {
            metadata: { type: 'Metadata', id: 1 },
            documents: { rule: 'repeated', type: 'Document', id: 2 },
            external_symbols: { rule: 'repeated', type: 'SymbolInformation', id: 3 },
          },
        },
        Metadata: {
          fields: {
            tool_info: { type: 'ToolInfo', id: 2 },
            project_root: { type: 'string', id: 3 },
          },
        },
        ToolInfo: {
          fields: { name: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } },
        },
        Document: {
          fields: {
            relative_path: { type: 'string', id: 1 },
            occurrences: { rule: 'repeated', type: 'Occurrence', id: 2 },
            symbols: { rule: 'repeated', type: 'SymbolInformation', id: 3 },
            language: { type: 'string', id: 4 },
          },
        },
        SymbolInformation: {
          fields: {
            symbol: { type: 'string', id: 1 },
            relationships: { rule: 'repeated', type: 'Relationship', id: 4 },
            kind: { type: 'int32', id: 5 },
            display_name: { type: 'string', id: 6 },
            enclosing_symbol: { type: 'string', id: 8 },
          },
        },
        Relationship: {
          fields: {
            symbol: { type: 'string', id: 1 },
            is_reference: { type: 'bool', id: 2 },
            is_implementation: { type: 'bool', id: 3 },
            is_type_definition: { type: 'bool', id: 4 },
            is_definition: { type: 'bool', id: 5 },
          },
        },
        Occurrence: {
          fields: {
            range: { rule: 'repeated', type: 'int32', id: 1 },
            symbol: { type: 'string', id: 2 },
            symbol_roles: { type: 'int32', id: 3 },
            enclosing_range: { rule: 'repeated', type: 'int32', id: 7 },
            single_line_range: { type: 'SingleLineRange', id: 8 },
            multi_line_range: { type: 'MultiLineRange', id: 9 },
            single_line_enclosing_range: { type: 'SingleLineRange', id: 10 },
            multi_line_enclosing_range: { type: 'MultiLineRange', id: 11 },
          },
        },
        SingleLineRange: {
          fields: {
            line: { type: 'int32', id: 1 },
            start_character: { type: 'int32', id: 2 },
            end_character: { type: 'int32', id: 3 },
          },
        },
        MultiLineRange: {
          fields: {
            start_line: { type: 'int32', id: 1 },
            start_character: { type: 'int32', id: 2 },
            end_line: { type: 'int32', id: 3 },
            end_character: { type: 'int32', id: 4 },
          },
        },
      },
    },
  },
};

const IndexType = protobuf.Root.fromJSON(SCHEMA).lookupType('scip.Index');

export interface ScipRelationship {
  symbol: string;
  is_reference: boolean;
  is_implementation: boolean;
  is_type_definition: boolean;
  is_definition: boolean;
}

export interface ScipSymbolInformation {
  symbol: string;
  relationships: ScipRelationship[];
  kind: number;
  display_name: string;
  enclosing_symbol: string;
}

export interface ScipOccurrence {
  range: number[];
  symbol: string;
  symbol_roles: number;
  enclosing_range: number[];
}

export interface ScipDocument {
  relative_path: string;
  language: string;
  occurrences: ScipOccurrence[];
  symbols: ScipSymbolInformation[];
}

export interface ScipIndex {
  tool: { name: string; version: string };
  project_root: string;
  documents: ScipDocument[];
  external_symbols: ScipSymbolInformation[];
}

interface SingleLineRange {
  line: number;
  start_character: number;
  end_character: number;
}
interface MultiLineRange {
  start_line: number;
  start_character: number;
  end_line: number;
  end_character: number;
}
interface RawOccurrence extends ScipOccurrence {
  single_line_range?: SingleLineRange | null;
  multi_line_range?: MultiLineRange | null;
  single_line_enclosing_range?: SingleLineRange | null;
  multi_line_enclosing_range?: MultiLineRange | null;
}

/** A typed range (fields 8-11) as the packed form: [line, start, end] or [startLine, start, endLine, end]. */
function typedRange(single?: SingleLineRange | null, multi?: MultiLineRange | null): number[] {
  if (single) return [single.line, single.start_character, single.end_character];
  if (multi) return [multi.start_line, multi.start_character, multi.end_line, multi.end_character];
  return [];
}

function normalize(o: RawOccurrence): ScipOccurrence {
  return {
    range: o.range.length > 0 ? o.range : typedRange(o.single_line_range, o.multi_line_range),
    symbol: o.symbol,
    symbol_roles: o.symbol_roles,
    enclosing_range:
      o.enclosing_range.length > 0
        ? o.enclosing_range
        : typedRange(o.single_line_enclosing_range, o.multi_line_enclosing_range),
  };
}

/** Decodes an index file's bytes. Throws on bytes that are not a SCIP index. */
export function readScipIndex(bytes: Uint8Array): ScipIndex {
  const msg = IndexType.decode(bytes);
  // Message fields stay null when absent (objects: false), so a typed range is told from no range at all.
  const o = IndexType.toObject(msg, { defaults: true, arrays: true, longs: Number }) as {
    metadata?: { tool_info?: { name: string; version: string }; project_root: string };
    documents: Array<Omit<ScipDocument, 'occurrences'> & { occurrences: RawOccurrence[] }>;
    external_symbols: ScipSymbolInformation[];
  };
  for (const d of o.documents) d.occurrences = d.occurrences.map(normalize);
  return {
    tool: { name: o.metadata?.tool_info?.name ?? '', version: o.metadata?.tool_info?.version ?? '' },
    project_root: o.metadata?.project_root ?? '',
    documents: o.documents,
    external_symbols: o.external_symbols,
  };
}
