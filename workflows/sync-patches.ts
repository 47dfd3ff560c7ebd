/**
 * The sync workflow's retired patches (docs/pipeline.md, "Versioning"). Each was `patched(id)` around a change of
 * the workflow's steps. Every sync workflow open when they were retired had been started by code that took the new
 * branch and recorded the patch's marker, so the old branches are gone and each call is `deprecatePatch(id)` where
 * `patched(id)` stood: histories holding the markers (test/fixtures/histories/*-2026-11-28.json) replay, and this
 * version records the markers too. The calls go in a later version, once no open workflow was started by a version
 * that called `patched` (Temporal's rule: code without the call replays histories whose marker is deprecated, not
 * the others); then this file goes with them.
 */

/** The parse runs two batches ahead of the write (was: one). */
export const PARSE_AHEAD_PATCH = 'parse-two-batches-ahead';
/** The clone's release runs beside the resolve (was: awaited first). */
export const RELEASE_BESIDE_RESOLVE_PATCH = 'release-beside-resolve';
/** The embedding steps are left out when nothing is left to embed. */
export const IDLE_EMBED_PATCH = 'skip-idle-embedding-steps';
/** resolveSymbols beside resolveDependencies (issue 28). */
export const SYMBOL_GRAPH_PATCH = 'symbol-graph';
/** The precise tier's plan and steps beside the embedding (issue 29). */
export const PRECISE_PATCH = 'precise-tier';
/** A light tree's writes run k at a time (was: one at a time). */
export const CONCURRENT_WRITES_PATCH = 'light-tree-writes-together';
/** Signal inputs checked; a failed last run fails the workflow; the end waits for the signal handlers (issue 31). */
export const SIGNALS_PATCH = 'checked-signals-failed-workflows';

/**
 * Live patch (`patched`, not yet deprecated): the precise tier starts right after the clone (planPrecise from the
 * clone's languages, preparePrecise per language: the indexers run beside the parse, writes and symbol graph), and
 * its preciseIndex steps go to the worker holding each index once the symbol graph is written (was: plan and index
 * after the symbol graph, beside the embedding).
 */
export const PRECISE_EARLY_PATCH = 'precise-starts-after-clone';
