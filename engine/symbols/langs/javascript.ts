import { ecmascript } from './ecmascript.ts';

/** JavaScript (with JSX: the grammar parses it in every file). */
export const javascriptSymbols = ecmascript('javascript', () => ['javascript.scm', 'jsx.scm']);
