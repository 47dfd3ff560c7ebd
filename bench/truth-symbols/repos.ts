/**
 * The repositories of the symbol-graph truth harness (bench/truth-symbols/truth.ts): two or more per language, of
 * different shapes, small to medium so that a run takes minutes. Each comes from a git mirror brought by the search
 * tool's `fetch` (`/work/.mirror/<owner>+<name>/repo`) and is copied into a temporary folder at run time.
 */
export type TruthLanguage = 'typescript' | 'javascript' | 'python' | 'go' | 'java';

export interface RepoSpec {
  name: string;
  /** `<owner>+<name>` under the mirrors folder. */
  mirror: string;
  language: TruthLanguage;
  /** The engine language ids scored. */
  languages: string[];
  indexer: 'typescript' | 'python' | 'go' | 'java';
  shape: string;
  /** Python: folders pyright searches for the project's own packages (a `src/` layout: what `pip install -e .` gives). */
  pythonPaths?: string[];
  /**
   * Java: the source folders compiled with the SemanticDB plugin (tests are left out: their libraries are not on the
   * class path), so only these folders' callables are scored.
   */
  javaSources?: string[];
}

export const REPOS: RepoSpec[] = [
  {
    name: 'hono',
    mirror: 'honojs+hono',
    language: 'typescript',
    languages: ['typescript', 'tsx'],
    indexer: 'typescript',
    shape: 'web framework, classes and generics, ~400 files',
  },
  {
    name: 'zod',
    mirror: 'colinhacks+zod',
    language: 'typescript',
    languages: ['typescript', 'tsx'],
    indexer: 'typescript',
    shape: 'monorepo of packages, heavy generics',
  },
  {
    name: 'axios',
    mirror: 'axios+axios',
    language: 'javascript',
    languages: ['javascript'],
    indexer: 'typescript',
    shape: 'ES modules, classes, adapters',
  },
  {
    name: 'preact',
    mirror: 'preactjs+preact',
    language: 'javascript',
    languages: ['javascript'],
    indexer: 'typescript',
    shape: 'ES module functions, JSDoc types, jsconfig',
  },
  {
    name: 'express',
    mirror: 'expressjs+express',
    language: 'javascript',
    languages: ['javascript'],
    indexer: 'typescript',
    shape: 'CommonJS, prototype-assigned methods (thin truth: scip-typescript defines few of them)',
  },
  {
    name: 'flask',
    mirror: 'pallets+flask',
    language: 'python',
    languages: ['python'],
    indexer: 'python',
    shape: 'src/ package, classes, decorators',
    pythonPaths: ['src'],
  },
  {
    name: 'fastapi',
    mirror: 'fastapi+fastapi',
    language: 'python',
    languages: ['python'],
    indexer: 'python',
    shape: 'library + ~1,500 docs example files',
  },
  {
    name: 'chi',
    mirror: 'go-chi+chi',
    language: 'go',
    languages: ['go'],
    indexer: 'go',
    shape: 'router, no dependencies',
  },
  {
    name: 'cobra',
    mirror: 'spf13+cobra',
    language: 'go',
    languages: ['go'],
    indexer: 'go',
    shape: 'CLI library, one dependency',
  },
  {
    name: 'gson',
    mirror: 'google+gson',
    language: 'java',
    languages: ['java'],
    indexer: 'java',
    shape: 'reflection-heavy library, nested classes',
    javaSources: ['gson/src/main/java', 'extras/src/main/java'],
  },
  {
    name: 'jsoup',
    mirror: 'jhy+jsoup',
    language: 'java',
    languages: ['java'],
    indexer: 'java',
    shape: 'HTML parser, state machines, deep class hierarchy',
    javaSources: ['src/main/java'],
  },
];
