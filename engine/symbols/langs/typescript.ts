import { ecmascript } from './ecmascript.ts';

/** TypeScript (`.tsx` adds the JSX patterns). */
export const typescriptSymbols = ecmascript('typescript', (dialect) =>
  dialect === 'tsx' ? ['typescript.scm', 'jsx.scm'] : ['typescript.scm'],
);
