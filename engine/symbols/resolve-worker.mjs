// Worker entry: registers the TypeScript loader (workers do not inherit the parent's `--import tsx` hooks on
// Node 20), then starts the resolver thread proper.
import { register } from 'tsx/esm/api';

register();
await import('./resolve-worker.ts');
