import type { RepoIndex } from './repo-index.ts';
import { shortest } from './common.ts';
import { basename, join } from './paths.ts';
import { packageAutoloads } from './composer.ts';

/**
 * A PHP class name (fully qualified, no leading '\') → its file, by composer's autoload rules over every
 * composer.json of the tree, in composer's order: PSR-4 (longest prefix first), PSR-0, then classmap (composer
 * scans those folders for classes; here: a file named after the class under a classmap entry). A class no rule
 * finds belongs to another package (vendor) when the importing file's own package declares autoload rules: composer
 * would load it from vendor/. A file of a package without autoload rules (an application with its own autoloader,
 * or no composer.json) also finds the classes of such files by their declared namespace and file name
 * (`App\Http\Kernel` → the Kernel.php whose namespace is App\Http): never by a path suffix alone, which would bind
 * `use Vendor\Console\Application` to the repository's own Console/Application.php.
 */
export function resolvePhpClass(cls: string, from: string, repo: RepoIndex): string[] {
  const { psr4, psr0, classmap } = repo.composer;
  const relative = cls.split('\\').join('/');
  for (const { prefix, dirs } of psr4) {
    if (!cls.startsWith(prefix)) continue;
    const rest = `${relative.slice(prefix.length)}.php`;
    for (const d of dirs) {
      const p = join(d, rest);
      if (p !== null && repo.files.has(p)) return [p];
    }
  }
  if (psr0.length > 0) {
    const cut = cls.lastIndexOf('\\') + 1;
    const logical = `${cls.slice(0, cut).split('\\').join('/')}${cls.slice(cut).split('_').join('/')}.php`;
    for (const { prefix, dirs } of psr0) {
      if (!cls.startsWith(prefix)) continue;
      for (const d of dirs) {
        const p = join(d, logical);
        if (p !== null && repo.files.has(p)) return [p];
      }
    }
  }
  if (classmap.length > 0) {
    // Composer scans classmap entries for declarations; a global class is found by its file name, a namespaced one
    // by its namespace path (the layout such code keeps).
    const global = !cls.includes('\\');
    const tail = `${relative}.php`;
    const hits = (repo.byBase.get(`${basename(relative)}.php`) ?? []).filter(
      (p) =>
        (global || p === tail || p.endsWith(`/${tail}`)) &&
        classmap.some((entry) => p === entry || entry === '' || p.startsWith(`${entry}/`)),
    );
    if (hits.length > 0) return [shortest(hits)];
  }
  // Outside packages with autoload rules: the class of the same namespace and file name (the one-class-per-file
  // layout autoloaders expect).
  if (packageAutoloads(repo.composer, from)) return [];
  const own = repo.composer.classes.get(cls.toLowerCase());
  return own === undefined ? [] : [own];
}

/** A namespaced function (`use function A\f`, `\A\f()`) → the composer `files` entry declaring it. */
export function resolvePhpFunction(name: string, repo: RepoIndex): string[] {
  const hit = repo.composer.functions.get(name.toLowerCase());
  return hit === undefined ? [] : [hit];
}

/** A namespace constant (`use const A\X`, `\A\X`) → the composer `files` entry declaring it. */
export function resolvePhpConstant(name: string, repo: RepoIndex): string[] {
  const hit = repo.composer.constants.get(name);
  return hit === undefined ? [] : [hit];
}
