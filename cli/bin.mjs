#!/usr/bin/env node
// The `ckg` command (package.json "bin"). The project runs its TypeScript through tsx, without a build step:
// register tsx's loader, then run the CLI.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
