/**
 * The ingestion options a source's `config` (and a sync's or schedule's `config_overrides`) may set, checked where
 * they enter the service so that a wrong type is a 400 naming the key, not a sync that silently ignores it.
 * Unknown keys are kept (the config object is the operator's), only the known ones are checked:
 *   include_paths: list of non-empty strings — limit the walk to these paths;
 *   embeddings:    boolean — false skips both embedding phases;
 *   incremental:   boolean — false forces a full sync (nothing reused from the previous completed sync);
 *   symbol_graph:  boolean — false leaves out the symbol graph (no symbol facts, no resolveSymbols step).
 */
import { InvalidArgumentError } from './errors.ts';

export function checkSyncConfig(config: Record<string, unknown> | undefined, field: string): void {
  if (config === undefined) return;
  const p = config.include_paths;
  if (p !== undefined && (!Array.isArray(p) || !p.every((x) => typeof x === 'string' && x.trim() !== ''))) {
    throw new InvalidArgumentError(`${field}.include_paths`, 'must be a list of non-empty strings');
  }
  for (const key of ['embeddings', 'incremental', 'symbol_graph']) {
    if (config[key] !== undefined && typeof config[key] !== 'boolean')
      throw new InvalidArgumentError(`${field}.${key}`, 'must be true or false');
  }
}
