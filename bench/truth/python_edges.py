"""Python truth for bench/truth: each file's imports read with CPython's `ast`, found with the import system's own
PathFinder (packages, namespace packages, modules, relative levels) over a stated sys.path. Prints one JSON object
per import: {"from": file, "targets": [file]} (targets empty when the module is not in the tree)."""
import ast
import json
import os
import sys
from importlib.machinery import PathFinder

root = os.path.abspath(sys.argv[1])
files = []
projects = []
for d, subdirs, names in os.walk(root):
    subdirs[:] = sorted(s for s in subdirs if not s.startswith('.') and s not in ('node_modules', '__pycache__'))
    rel = os.path.relpath(d, root)
    rel = '' if rel == '.' else rel
    if any(n in names for n in ('pyproject.toml', 'setup.py', 'setup.cfg')):
        projects.append(rel)
    files += [os.path.join(rel, n) if rel else n for n in sorted(names) if n.endswith('.py')]
projects.sort(key=lambda p: -len(p))
STDLIB = set(sys.stdlib_module_names)


def absdir(rel):
    return os.path.join(root, rel) if rel else root


def is_pkg(rel_dir):
    return os.path.isfile(os.path.join(absdir(rel_dir), '__init__.py'))


def sys_path(f):
    """(before-stdlib roots, after-stdlib roots) for file f, as the engine's policy states them."""
    own = os.path.dirname(f)
    first = []
    if not is_pkg(own):
        first.append(own)
    top = own
    while top and is_pkg(top):
        top = os.path.dirname(top)
    first += [top, '']
    later = []
    mine = [p for p in projects if p == '' or f.startswith(p + '/')]
    for p in mine:
        later += [p, os.path.join(p, 'src') if p else 'src']
    later += ['src', 'lib']
    for p in projects:
        if p not in mine:
            later += [p, os.path.join(p, 'src')]
    uniq = lambda xs: [absdir(x) for i, x in enumerate(xs) if x not in xs[:i] and os.path.isdir(absdir(x))]
    return uniq(first), uniq(later)


def find(dotted, path):
    """The origin file of a dotted module found from `path` (None when absent or a namespace package)."""
    parts = dotted.split('.')
    locations = path
    spec = None
    for i in range(len(parts)):
        spec = PathFinder.find_spec('.'.join(parts[: i + 1]), locations)
        if spec is None:
            return None
        if i < len(parts) - 1:
            locations = list(spec.submodule_search_locations or [])
            if not locations:
                return None
    return spec.origin if spec.has_location else None


def inside(origin):
    if origin is None or not origin.endswith('.py'):
        return None
    rel = os.path.relpath(origin, root)
    return None if rel.startswith('..') else rel


def resolve_abs(f, dotted):
    before, later = sys_path(f)
    hit = find(dotted, before)
    if hit is None and dotted.split('.')[0] in STDLIB:
        return None
    return hit or find(dotted, later)


for f in files:
    try:
        tree = ast.parse(open(os.path.join(root, f), 'rb').read(), filename=f)
    except (SyntaxError, ValueError):
        continue
    for node in ast.walk(tree):
        items = []
        if isinstance(node, ast.Import):
            for a in node.names:
                items.append(inside(resolve_abs(f, a.name)))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = os.path.dirname(f)
                for _ in range(node.level - 1):
                    base = os.path.dirname(base)
                path = [absdir(base)]
                module = node.module
                init = os.path.join(absdir(base), '__init__.py')
                mod_origin = find(module, path) if module else (init if os.path.isfile(init) else None)
                sub = lambda n: find(f'{module}.{n}', path) if module else find(n, path)
            else:
                module = node.module
                mod_origin = resolve_abs(f, module)
                sub = lambda n: resolve_abs(f, f'{module}.{n}')
            for a in node.names:
                hit = None if a.name == '*' else sub(a.name)
                items.append(inside(hit or mod_origin))
        for t in items:
            if t != f:
                print(json.dumps({'from': f, 'targets': [t] if t else []}))
