<?php
// PHP truth for bench/truth: each file's imports read with nikic/PHP-Parser (Debian's php-parser) and its
// NameResolver; classes found with Composer's own ClassLoader built from the autoload maps that
// `composer dump-autoload --dev` wrote for every composer.json of the tree (PSR-4, PSR-0, classmap), the file's own
// package first, then the repository root's, then the others (installed side by side); a class no loader finds is
// taken from the file of the tree that declares it (another autoloader or an include would load it), if one does.
// Functions and constants (`use function`, `\ns\fn()`) go to the file declaring them.
// include/require arguments are evaluated (literals, `.`, __DIR__, __FILE__, DIRECTORY_SEPARATOR, dirname(), realpath(),
// str_replace(), rtrim(), and constants the tree defines with evaluable values that agree wherever they are defined).
// Prints one JSON object per line: {"scope": file} for every parsed file, {"from": file, "targets": [...], "via": kind}
// per import.
//   php php_edges.php <root> <packages.json>   (packages.json: [{"dir": rel, "vendor": abs}], root package first)

require '/usr/share/php/PhpParser/autoload.php';
require_once '/usr/share/php/Composer/Autoload/ClassLoader.php';

use Composer\Autoload\ClassLoader;
use PhpParser\ConstExprEvaluationException;
use PhpParser\ConstExprEvaluator;
use PhpParser\Node;
use PhpParser\NodeTraverser;
use PhpParser\NodeVisitor\NameResolver;
use PhpParser\NodeVisitorAbstract;
use PhpParser\ParserFactory;

$root = rtrim(realpath($argv[1]), '/');
$packages = json_decode(file_get_contents($argv[2]), true);

// One Composer ClassLoader per package, from the maps composer generated (the loader itself, not our reading).
$loaders = [];
foreach ($packages as $p) {
    $loader = new ClassLoader();
    foreach (require $p['vendor'] . '/composer/autoload_namespaces.php' as $prefix => $dirs) $loader->set($prefix, $dirs);
    foreach (require $p['vendor'] . '/composer/autoload_psr4.php' as $prefix => $dirs) $loader->setPsr4($prefix, $dirs);
    $loader->addClassMap(require $p['vendor'] . '/composer/autoload_classmap.php');
    $loaders[] = ['dir' => $p['dir'], 'loader' => $loader];
}

function rel(string $abs, string $root): ?string
{
    return str_starts_with($abs, $root . '/') ? substr($abs, strlen($root) + 1) : null;
}

function normalize(string $path): string
{
    $out = [];
    foreach (explode('/', $path) as $seg) {
        if ($seg === '' || $seg === '.') continue;
        if ($seg === '..') array_pop($out);
        else $out[] = $seg;
    }
    return '/' . implode('/', $out);
}

$files = [];
$it = new RecursiveIteratorIterator(new RecursiveCallbackFilterIterator(
    new RecursiveDirectoryIterator($root, FilesystemIterator::SKIP_DOTS),
    fn ($f) => !str_starts_with($f->getFilename(), '.') && !in_array($f->getFilename(), ['node_modules', 'vendor'], true),
));
foreach ($it as $f) {
    if ($f->isFile() && preg_match('/\.(php|phtml|php5|php7|phps)$/', $f->getFilename())) $files[] = rel($f->getPathname(), $root);
}
sort($files);

$parser = (new ParserFactory())->create(ParserFactory::PREFER_PHP7);
$asts = [];
// Declarations of the tree (lower-cased class names, as PHP compares them): name => [files].
$declared = ['class' => [], 'function' => [], 'const' => []];
// Constants defined with define() or const anywhere in the tree: name => [[file, value expression]].
$defines = [];
class Declarations extends NodeVisitorAbstract
{
    public array $found = [];
    public array $defines = [];
    public function enterNode(Node $n)
    {
        if ($n instanceof Node\Stmt\ClassLike && $n->name !== null) {
            $this->found[] = ['class', strtolower($n->namespacedName->toString())];
        } elseif ($n instanceof Node\Stmt\Function_) {
            $this->found[] = ['function', strtolower($n->namespacedName->toString())];
        } elseif ($n instanceof Node\Stmt\Const_) {
            foreach ($n->consts as $c) {
                $this->found[] = ['const', $c->namespacedName->toString()];
                $this->defines[] = [$c->namespacedName->toString(), $c->value];
            }
        } elseif ($n instanceof Node\Expr\FuncCall && $n->name instanceof Node\Name
            && strtolower($n->name->toString()) === 'define' && count($n->args) >= 2
            && $n->args[0]->value instanceof Node\Scalar\String_) {
            $this->defines[] = [$n->args[0]->value->value, $n->args[1]->value];
        }
        return null;
    }
}
foreach ($files as $f) {
    try {
        $ast = $parser->parse(file_get_contents("$root/$f"));
    } catch (Throwable $e) {
        continue; // outside the comparison
    }
    $t = new NodeTraverser();
    $t->addVisitor(new NameResolver(null, ['preserveOriginalNames' => true, 'replaceNodes' => true]));
    $t->addVisitor($d = new Declarations());
    $asts[$f] = $t->traverse($ast);
    foreach ($d->found as [$kind, $name]) $declared[$kind][$name][] = $f;
    foreach ($d->defines as [$name, $expr]) $defines[$name][] = [$f, $expr];
    echo json_encode(['scope' => $f]), "\n";
}

// Composer's `files` entries (always loaded) outside the parsed files, e.g. in a committed vendor/: their functions.
foreach ($packages as $p) {
    $list = $p['vendor'] . '/composer/autoload_files.php';
    if (!is_file($list)) continue;
    foreach (require $list as $abs) {
        $real = realpath($abs);
        $f = $real === false ? null : rel($real, $root);
        if ($f === null || isset($asts[$f])) continue;
        try {
            $t = new NodeTraverser();
            $t->addVisitor(new NameResolver());
            $t->addVisitor($d = new Declarations());
            $t->traverse($parser->parse(file_get_contents($real)));
            foreach ($d->found as [$kind, $name]) if ($kind === 'function') $declared[$kind][$name][] = $f;
        } catch (Throwable $e) {
        }
    }
}

function findClass(string $class, string $from, array $loaders, array $declared, string $root): array
{
    $own = null;
    foreach ($loaders as $l) {
        if ($l['dir'] === '' || str_starts_with($from, $l['dir'] . '/')) {
            if ($own === null || strlen($l['dir']) > strlen($own['dir'])) $own = $l;
        }
    }
    $order = $own === null ? $loaders : array_merge([$own], array_filter($loaders, fn ($l) => $l !== $own));
    foreach ($order as $l) {
        $hit = $l['loader']->findFile($class);
        if ($hit !== false) {
            $r = rel(realpath($hit) ?: normalize($hit), $root);
            if ($r !== null) return [[$r], 'composer'];
            return [[], 'composer'];
        }
    }
    $decl = $declared['class'][strtolower($class)] ?? [];
    return [array_values(array_unique($decl)), $decl ? 'declared' : 'external'];
}

class Imports extends NodeVisitorAbstract
{
    public array $items = [];
    public function __construct(private string $file, private string $root) {}

    private function add(string $kind, string $name, string $via): void
    {
        $this->items[] = [$kind, ltrim($name, '\\'), $via];
    }

    public function enterNode(Node $n)
    {
        if ($n instanceof Node\Stmt\Use_ || $n instanceof Node\Stmt\GroupUse) {
            $prefix = $n instanceof Node\Stmt\GroupUse ? $n->prefix->toString() . '\\' : '';
            foreach ($n->uses as $u) {
                $type = $u->type !== Node\Stmt\Use_::TYPE_UNKNOWN ? $u->type : $n->type;
                $kind = [Node\Stmt\Use_::TYPE_FUNCTION => 'function', Node\Stmt\Use_::TYPE_CONSTANT => 'const'][$type] ?? 'class';
                $this->add($kind, $prefix . $u->name->toString(), 'use');
            }
            return NodeTraverser::DONT_TRAVERSE_CHILDREN;
        }
        if ($n instanceof Node\Expr\FuncCall && $n->name instanceof Node\Name) $n->name->setAttribute('ctx', 'function');
        if ($n instanceof Node\Expr\ConstFetch) $n->name->setAttribute('ctx', 'const');
        if ($n instanceof Node\Name && $n->hasAttribute('originalName')) {
            $orig = $n->getAttribute('originalName');
            // Written with a namespace path: fully qualified, through a `use` alias, or relative (namespace\X).
            // A bare name is either a `use` (counted there) or the same namespace (not an edge).
            if ($orig instanceof Node\Name\FullyQualified) $via = 'fqn';
            elseif ($orig instanceof Node\Name\Relative || $orig->isQualified()) $via = 'qualified';
            else return null;
            $this->add($n->getAttribute('ctx', 'class'), $n->toString(), $via);
        }
        if ($n instanceof Node\Expr\Include_) {
            $path = includePath($n->expr, $this->file, $this->root);
            $this->items[] = ['include', $path, 'include'];
        }
        return null;
    }
}

/** normalize() keeping a trailing '/', which concatenation depends on. */
function normalizeDir(string $path): string
{
    return normalize($path) . (str_ends_with($path, '/') && $path !== '/' ? '/' : '');
}

/**
 * A constant's value when the tree defines it (define() or const) with expressions evaluable in their files, all of
 * them agreeing (`define('APP_ROOT', __DIR__ . '/../')` in every entry script is the same folder); else null.
 */
function constantValue(string $name, array $stack): ?string
{
    global $defines, $constantCache, $root;
    if (array_key_exists($name, $constantCache)) return $constantCache[$name];
    if (in_array($name, $stack, true)) return null;
    $values = [];
    foreach ($defines[$name] ?? [] as [$file, $expr]) {
        $v = evaluate($expr, $file, $root, [...$stack, $name]);
        if (is_string($v)) $values[normalizeDir($v)] = true;
    }
    return $constantCache[$name] = count($values) === 1 ? array_key_first($values) : null;
}
$constantCache = [];

/**
 * An expression's value when it is made of literals, `.`, __DIR__, __FILE__, DIRECTORY_SEPARATOR, the tree's
 * constants (constantValue) and the pure path functions dirname, realpath, str_replace, rtrim; else null.
 */
function evaluate(Node\Expr $expr, string $file, string $root, array $stack = []): mixed
{
    $abs = "$root/$file";
    $eval = null;
    $eval = new ConstExprEvaluator(function (Node\Expr $e) use (&$eval, $abs, $stack) {
        if ($e instanceof Node\Scalar\MagicConst\Dir) return dirname($abs);
        if ($e instanceof Node\Scalar\MagicConst\File) return $abs;
        if ($e instanceof Node\Expr\ConstFetch) {
            $name = $e->name->toString();
            if ($name === 'DIRECTORY_SEPARATOR') return '/';
            $v = constantValue(ltrim($name, '\\'), $stack);
            if ($v !== null) return $v;
        }
        if ($e instanceof Node\Expr\FuncCall && $e->name instanceof Node\Name) {
            $fn = strtolower($e->name->toString());
            $args = array_map(fn ($a) => $eval->evaluateDirectly($a->value), $e->args);
            if ($fn === 'dirname') return dirname($args[0], $args[1] ?? 1);
            if ($fn === 'realpath') return normalize($args[0]);
            if ($fn === 'str_replace' && count($args) === 3) return str_replace($args[0], $args[1], $args[2]);
            if ($fn === 'rtrim') return rtrim(...$args);
        }
        throw new ConstExprEvaluationException('not evaluable');
    });
    try {
        return $eval->evaluateDirectly($expr);
    } catch (Throwable $e) {
        return null;
    }
}

function includePath(Node\Expr $expr, string $file, string $root): ?string
{
    $v = evaluate($expr, $file, $root);
    return is_string($v) ? $v : null;
}

/** Files an include of $path from $file may open: absolute as is; otherwise relative to the working directory
 * (taken to be the file's directory or the repository root: entry scripts run from either), and PHP's last resort
 * for a path without ./ or ../, the including file's directory. */
function includeTargets(?string $path, string $file, string $root): array
{
    if ($path === null || $path === '') return [];
    $candidates = str_starts_with($path, '/') ? [$path] : [dirname("$root/$file") . "/$path", "$root/$path"];
    $out = [];
    foreach ($candidates as $c) {
        $c = normalize($c);
        $r = rel($c, $root);
        if ($r !== null && is_file($c)) $out[] = $r;
    }
    return array_values(array_unique($out));
}

foreach ($asts as $f => $ast) {
    $v = new Imports($f, $root);
    $t = new NodeTraverser();
    $t->addVisitor($v);
    $t->traverse($ast);
    foreach ($v->items as [$kind, $name, $via]) {
        if ($kind === 'include') {
            $targets = includeTargets($name, $f, $root);
            $how = $name === null ? 'not evaluable' : ($targets ? 'include' : 'external');
        } elseif ($kind === 'class') {
            if (in_array(strtolower($name), ['self', 'parent', 'static'], true)) continue;
            [$targets, $how] = findClass($name, $f, $loaders, $declared, $root);
        } else {
            $key = $kind === 'function' ? strtolower($name) : $name;
            $targets = array_values(array_unique($declared[$kind][$key] ?? []));
            $how = $targets ? 'declared' : 'external';
        }
        $targets = array_values(array_filter($targets, fn ($t) => $t !== $f));
        echo json_encode(['from' => $f, 'targets' => $targets, 'via' => "$via/$kind/$how", 'name' => $name]), "\n";
    }
}
