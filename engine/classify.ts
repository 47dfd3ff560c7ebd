import type { FileType } from './types.ts';
import { pluginForExtension, pluginForInterpreter } from './languages/registry.ts';

export interface Classification {
  type: FileType;
  /** A plugin's language id, 'markdown', 'text', or '' (binary, empty, or unknown). */
  language: string;
}

function extOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}

const MARKDOWN = new Set(['.md', '.markdown', '.mdx', '.mdown', '.mkd']);
const DOC_EXT = new Set(['.rst', '.adoc', '.asciidoc', '.txt', '.text', '.org', '.tex', '.pod', '.rdoc', '.man']);
const DOC_NAMES =
  /^(readme|license|licence|copying|changelog|changes|authors|contributors|notice|history|news|contributing|code_of_conduct|security|patents|todo)(\..*)?$/i;
const CONFIG_EXT = new Set([
  '.toml',
  '.yaml',
  '.yml',
  '.ini',
  '.cfg',
  '.conf',
  '.properties',
  '.editorconfig',
  '.env',
  '.lock',
  '.gradle',
  '.cmake',
  '.mk',
  '.plist',
  '.xcconfig',
  '.sbt',
  '.csproj',
  '.sln',
  '.props',
  '.targets',
]);
const CONFIG_NAMES =
  /^(package\.json|package-lock\.json|tsconfig(\..*)?\.json|jsconfig\.json|composer\.(json|lock)|go\.(mod|sum|work)|cargo\.(toml|lock)|pom\.xml|build\.xml|makefile|gnumakefile|cmakelists\.txt|gemfile|gemfile\.lock|rakefile|pipfile|pipfile\.lock|setup\.cfg|setup\.py|pyproject\.toml|requirements.*\.txt|\.gitignore|\.gitattributes|\.gitmodules|\.npmrc|\.nvmrc|\.prettierrc.*|\.eslintrc.*|eslint\.config\.[cm]?js|\.babelrc|babel\.config\.[cm]?js|.*\.config\.[cm]?[jt]s|\.dockerignore|\.env(\..*)?|\.editorconfig|vite\.config\..*|webpack\.config\..*|package\.swift|build\.gradle(\.kts)?|settings\.gradle(\.kts)?|gradle\.properties|\.clang-format|\.golangci\.ya?ml|renovate\.json|tox\.ini|mkdocs\.yml|\.travis\.yml|codecov\.yml)$/i;
const SERVICE_NAMES =
  /^(dockerfile(\..*)?|.*\.dockerfile|containerfile|docker-compose.*\.ya?ml|compose(\..*)?\.ya?ml|procfile|.*\.service|.*\.socket|.*\.timer|vagrantfile|skaffold\.ya?ml|chart\.ya?ml|kustomization\.ya?ml|app\.ya?ml|fly\.toml|nginx\.conf|supervisord\.conf)$/i;
const DATA_EXT = new Set([
  '.json',
  '.jsonl',
  '.ndjson',
  '.csv',
  '.tsv',
  '.xml',
  '.sql',
  '.graphql',
  '.gql',
  '.proto',
  '.avro',
  '.parquet',
  '.db',
  '.sqlite',
  '.sqlite3',
  '.arrow',
  '.pb',
  '.golden',
  '.snap',
  '.dat',
  '.npy',
  '.pkl',
  '.h5',
  '.xsd',
  '.dtd',
  '.geojson',
]);
const ASSET_EXT = new Set([
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.bmp',
  '.ico',
  '.icns',
  '.svg',
  '.webp',
  '.avif',
  '.tif',
  '.tiff',
  '.psd',
  '.woff',
  '.woff2',
  '.ttf',
  '.otf',
  '.eot',
  '.mp3',
  '.wav',
  '.ogg',
  '.flac',
  '.mp4',
  '.mov',
  '.webm',
  '.avi',
  '.pdf',
  '.zip',
  '.gz',
  '.tgz',
  '.bz2',
  '.xz',
  '.zst',
  '.7z',
  '.tar',
  '.jar',
  '.war',
  '.class',
  '.so',
  '.dylib',
  '.dll',
  '.exe',
  '.o',
  '.a',
  '.lib',
  '.wasm',
  '.bin',
  '.css',
  '.scss',
  '.sass',
  '.less',
  '.html',
  '.htm',
  '.map',
  '.pyc',
]);
const TEXT_LIKE_EXT = new Set([
  ...CONFIG_EXT,
  ...DATA_EXT,
  ...DOC_EXT,
  '.css',
  '.scss',
  '.sass',
  '.less',
  '.html',
  '.htm',
  '.svg',
  '.map',
  '.xml',
  '.sql',
]);
const TEST_DIR = /(^|\/)(test|tests|__tests__|spec|specs|testdata|testing|test_data|fixtures|e2e)\//i;
const TEST_FILE =
  /(_test\.[^.]+$|^test_.*\.py$|_tests?\.py$|\.(test|spec)\.[cm]?[jt]sx?$|Tests?\.(java|kt|scala|cs|swift|php)$|Spec\.(scala|kt)$|_spec\.rb$|_test\.rb$|\.bats$|_test\.(c|cc|cpp)$)/;
const SCRIPT_DIR = /(^|\/)(scripts?|bin|tools|hack|ci|\.github|\.circleci)\//i;

/** The interpreter named by a `#!` line, if any (`#!/usr/bin/env python3` gives `python3`). */
export function shebangInterpreter(head: string): string | null {
  if (!head.startsWith('#!')) return null;
  const line = head.slice(2, head.indexOf('\n') === -1 ? undefined : head.indexOf('\n')).trim();
  const parts = line.split(/\s+/).filter((p) => !p.startsWith('-'));
  const first = parts[0] ?? '';
  const prog = first.slice(first.lastIndexOf('/') + 1);
  if (prog === 'env') return parts[1] ?? null;
  return prog || null;
}

const CPP_HINT =
  /^\s*(class|namespace|template\s*<|using\s+namespace|public:|private:|#include\s*<(iostream|string|vector|memory|map)>)/m;

/**
 * Classifies a file by its path, and for extension-less scripts and `.h` headers by the start of its text.
 * `head` is the start of the decoded text ('' for binary files); `binary` is true for files with NUL bytes.
 */
export function classify(path: string, head: string, binary: boolean, empty: boolean): Classification {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const ext = extOf(name);
  let language = '';
  let plugin = pluginForExtension(ext);
  if (!plugin && ext === '' && !binary) {
    const interp = shebangInterpreter(head);
    if (interp) plugin = pluginForInterpreter(interp);
  }
  if (plugin) language = plugin.id;
  if (language === 'c' && ext === '.h' && CPP_HINT.test(head)) language = 'cpp';
  if (!plugin && !binary) {
    if (MARKDOWN.has(ext)) language = 'markdown';
    else if (!ASSET_EXT.has(ext) || TEXT_LIKE_EXT.has(ext)) language = 'text';
  }
  // An empty file keeps its programming language (an empty __init__.py is Python) but is not 'text'.
  if (binary || (empty && !plugin)) language = '';

  let type: FileType;
  if (SERVICE_NAMES.test(name)) type = 'service';
  else if (CONFIG_NAMES.test(name) || CONFIG_EXT.has(ext)) type = 'config';
  else if (plugin && (TEST_FILE.test(name) || TEST_DIR.test(path))) type = 'test';
  else if (plugin?.id === 'bash' || (plugin && SCRIPT_DIR.test(path))) type = 'script';
  else if (plugin) type = 'source';
  else if (MARKDOWN.has(ext) || DOC_EXT.has(ext) || DOC_NAMES.test(name) || /(^|\/)docs?\//i.test(path)) type = 'doc';
  else if (ASSET_EXT.has(ext)) type = 'asset';
  else if (DATA_EXT.has(ext) || binary) type = binary ? 'asset' : 'data';
  else type = TEST_DIR.test(path) ? 'test' : 'data';
  if (binary && DATA_EXT.has(ext)) type = 'data';
  return { type, language };
}
