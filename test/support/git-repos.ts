/** Real git repositories on local disk for sync tests (created with git at test time, removed afterwards). */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type RepoFile = string | Buffer | { symlink: string };

export interface TestRepo {
  dir: string;
  head: string;
  remove(): void;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.invalid',
      GIT_AUTHOR_DATE: '2026-01-02T03:04:05Z',
      GIT_COMMITTER_DATE: '2026-01-02T03:04:05Z',
    },
  });
}

export function writeTree(dir: string, files: Record<string, RepoFile>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    if (typeof content === 'object' && 'symlink' in content) symlinkSync(content.symlink, full);
    else writeFileSync(full, content);
  }
}

/** A repository with one commit on branch `main` holding `files`. */
export function createRepo(files: Record<string, RepoFile>, branch = 'main'): TestRepo {
  const dir = mkdtempSync(join(tmpdir(), 'ckg-repo-'));
  git(dir, 'init', '-q', '-b', branch);
  writeTree(dir, files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'fixture');
  return {
    dir,
    head: git(dir, 'rev-parse', 'HEAD').trim(),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Commits `files` on top of the current branch; `repo.head` becomes the new commit. */
export function addCommit(repo: TestRepo, files: Record<string, RepoFile>, message = 'more'): string {
  writeTree(repo.dir, files);
  git(repo.dir, 'add', '-A');
  git(repo.dir, 'commit', '-q', '-m', message);
  repo.head = git(repo.dir, 'rev-parse', 'HEAD').trim();
  return repo.head;
}

/** Adds a branch or a tag pointing at the repository's HEAD (so a sync can fetch that ref). */
export function addRef(repo: TestRepo, kind: 'branch' | 'tag', name: string): void {
  git(repo.dir, kind, name);
}

/** A small repository in several languages with imports between files, symbols, docs and config. */
export const MULTI_LANGUAGE_FILES: Record<string, string> = {
  'README.md': '# Demo\n\nA small repository.\n\n## Usage\n\nRun `main.py`.\n',
  'src/app.ts':
    "import { helper } from './util';\n\nexport class App {\n  run(): number {\n    return helper(2);\n  }\n}\n",
  'src/util.ts': 'export function helper(x: number): number {\n  return x * 2;\n}\n',
  'py/main.py': 'from py import lib\n\n\ndef main():\n    return lib.twice(3)\n',
  'py/lib.py': 'def twice(x):\n    return 2 * x\n\n\nclass Box:\n    def open(self):\n        return True\n',
  'py/__init__.py': '',
  'go/go.mod': 'module example.com/demo\n\ngo 1.21\n',
  'go/main.go': 'package main\n\nimport "example.com/demo/pkg"\n\nfunc main() {\n\tpkg.Hello()\n}\n',
  'go/pkg/hello.go': 'package pkg\n\nimport "fmt"\n\n// Hello says hello.\nfunc Hello() {\n\tfmt.Println("hello")\n}\n',
  'config.json': '{ "name": "demo" }\n',
  'notes.txt': 'First paragraph.\n\nSecond paragraph.\n',
};

/**
 * An expression toolkit: a tokenizer and a parser in TypeScript, report helpers in Python, with imports between them
 * (the end-to-end service test and the web explorer's browser test sync it through the whole service).
 */
export const EXPRESSION_TOOLKIT_FILES: Record<string, string> = {
  'README.md': '# Expressions\n\nA tokenizer and a parser, with report helpers in Python.\n',
  'src/tokenizer.ts':
    'export interface Token {\n  kind: string;\n  text: string;\n}\n\n' +
    'export function tokenizeSource(text: string): Token[] {\n' +
    "  return text.split(/\\s+/).filter((t) => t !== '').map((t) => ({ kind: 'word', text: t }));\n}\n",
  'src/parser.ts':
    "import { tokenizeSource, type Token } from './tokenizer';\n\n" +
    'export class ExpressionParser {\n  parse(text: string): Token[] {\n    return tokenizeSource(text);\n  }\n}\n',
  'src/index.ts':
    "import { ExpressionParser } from './parser';\nimport { tokenizeSource } from './tokenizer';\n\n" +
    'export function run(text: string): number {\n' +
    '  return new ExpressionParser().parse(text).length + tokenizeSource(text).length;\n}\n',
  'report/stats.py':
    'def compute_histogram(values):\n    counts = {}\n    for value in values:\n' +
    '        counts[value] = counts.get(value, 0) + 1\n    return counts\n',
  'report/render.py':
    'from report.stats import compute_histogram\n\n\ndef render_report(words):\n' +
    '    return sorted(compute_histogram(words).items())\n',
};

/** Many small TypeScript files importing each other: enough work for a sync to be caught mid-phase. */
export function generatedFiles(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const dep = i > 0 ? `import { f${i - 1} } from './m${i - 1}';\n\n` : '';
    const call = i > 0 ? `f${i - 1}(x)` : 'x';
    files[`src/m${i}.ts`] =
      `${dep}export function f${i}(x: number): number {\n  return ${call} + ${i};\n}\n\n` +
      `export class C${i} {\n  run(): number {\n    return f${i}(${i});\n  }\n}\n`;
  }
  return files;
}
