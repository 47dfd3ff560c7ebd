/**
 * Writes the workflow bundle a worker can start from (TEMPORAL_WORKFLOW_BUNDLE) instead of bundling workflows/ itself:
 *
 *   node --import tsx scripts/bundle-workflows.ts OUT.js
 *
 * The bundle is the code of this checkout: build it again whenever workflows/ (or what it imports) changes.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { buildWorkflowBundle } from '../temporal/bundler.ts';

const out = process.argv[2];
if (!out) {
  console.error('usage: node --import tsx scripts/bundle-workflows.ts OUT.js');
  process.exit(2);
}
const code = await buildWorkflowBundle();
mkdirSync(dirname(out), { recursive: true });
// Written whole or not at all: workers of a running suite may read the previous file meanwhile.
writeFileSync(`${out}.tmp`, code);
renameSync(`${out}.tmp`, out);
