/**
 * Merging the components' OpenAPI documents into one. Only operations the gateway actually routes to that
 * component are kept (a component's own /health, say, is not reachable through the gateway). Paths present in
 * several documents are merged method by method. The components take their shared names (Error, Sync, Schedule,
 * Health) from lib/openapi.ts, so these are identical and merge into one. A name defined differently by two documents
 * (components of different versions during a rolling deploy) is renamed `<Name>_<component>` in the later one, with
 * its $refs rewritten.
 */
import { resolveRoute, type Destination } from '../routes.ts';
import type { OpenApiDoc } from './gateway-openapi.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface Part {
  name: string;
  destination: Destination;
  doc: OpenApiDoc;
}

function samplePath(template: string): string {
  return template.replace(/\{[^}]+\}/g, 'x');
}

function rewriteRefs(value: unknown, renames: Map<string, string>): unknown {
  if (renames.size === 0 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, renames));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === '$ref' && typeof v === 'string' && renames.has(v) ? renames.get(v) : rewriteRefs(v, renames);
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function mergeDocuments(base: OpenApiDoc, parts: readonly Part[]): OpenApiDoc {
  const merged = structuredClone(base);
  const paths = (merged.paths ??= {});
  const components = (merged.components ??= {});
  const tags = (merged.tags ??= []);
  for (const part of parts) {
    const renames = new Map<string, string>();
    for (const [section, entries] of Object.entries(part.doc.components ?? {})) {
      const target = (components[section] ??= {});
      for (const [name, def] of Object.entries(entries ?? {})) {
        if (name in target && !same(target[name], def)) {
          renames.set(`#/components/${section}/${name}`, `#/components/${section}/${name}_${part.name}`);
        }
      }
    }
    const doc = rewriteRefs(part.doc, renames) as OpenApiDoc;
    for (const [section, entries] of Object.entries(doc.components ?? {})) {
      const target = (components[section] ??= {});
      for (const [name, def] of Object.entries(entries ?? {})) {
        const key = renames.has(`#/components/${section}/${name}`) ? `${name}_${part.name}` : name;
        target[key] ??= def;
      }
    }
    for (const [template, item] of Object.entries(doc.paths ?? {})) {
      for (const method of METHODS) {
        const op = item[method];
        if (op === undefined) continue;
        const r = resolveRoute(method.toUpperCase(), samplePath(template));
        if (r.kind !== 'route' || r.destination !== part.destination) continue;
        const entry = (paths[template] ??= {});
        for (const [k, v] of Object.entries(item)) {
          if (!METHODS.includes(k)) entry[k] ??= v; // parameters, summary shared by the path
        }
        entry[method] ??= op;
      }
    }
    for (const tag of doc.tags ?? []) if (!tags.some((t) => t.name === tag.name)) tags.push(tag);
  }
  return merged;
}
