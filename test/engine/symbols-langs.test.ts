/**
 * The symbol graph of C, C++, C#, Rust, Ruby, PHP, Kotlin, Scala, Swift and Bash (issue 28): one edge per resolution
 * rule and language, with its provenance, on the small repositories of test/fixtures/engine/symbols/<language>
 * (their whole graphs are golden snapshots in test/engine/symbols.test.ts); uses the resolver must not guess stay
 * unresolved with their reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSymbolGraph } from '../../engine/index.ts';
import type { ResolveOutput } from '../../engine/index.ts';
import { SYMBOL_REPOS_DIR, symbolInput } from './symbols.ts';

const graphs = new Map<string, Promise<ResolveOutput>>();
function graphOf(repo: string): Promise<ResolveOutput> {
  let hit = graphs.get(repo);
  if (!hit) {
    hit = symbolInput(SYMBOL_REPOS_DIR + repo).then(({ input }) => resolveSymbolGraph({ files: input }));
    graphs.set(repo, hit);
  }
  return hit;
}

/** [repo, label, from, to, provenance]. */
type Rule = [string, string, string, string, string];

const RULES: Rule[] = [
  // C#: namespaces by name (`using`), block and file-scoped; base list labelled by the target's kind; `: base()`;
  // typed locals and fields; static members through the type; overrides; a method group as a value.
  [
    'csharp',
    'calls',
    'src/App/Program.cs#Demo.App.Program.Main:method',
    'src/Shapes/Circle.cs#Circle.Circle:constructor',
    'scope',
  ],
  [
    'csharp',
    'calls',
    'src/App/Program.cs#Demo.App.Program.Main:method',
    'src/Shapes/IShape.cs#Demo.Shapes.IShape.Area:method',
    'receiver_type',
  ],
  [
    'csharp',
    'calls',
    'src/App/Program.cs#Demo.App.Program.Run:method',
    'src/Shapes/Circle.cs#Circle.Area:method',
    'receiver_type',
  ],
  [
    'csharp',
    'calls',
    'src/App/Program.cs#Demo.App.Program.Run:method',
    'src/App/Program.cs#Demo.App.Program.Helper:method',
    'self',
  ],
  [
    'csharp',
    'calls',
    'src/App/Program.cs#Demo.App.Program:class',
    'src/Shapes/Circle.cs#Circle.Unit:method',
    'qualified',
  ],
  [
    'csharp',
    'calls',
    'src/Shapes/Circle.cs#Circle.Circle:constructor',
    'src/Shapes/Base.cs#Demo.Shapes.Base.Base:constructor',
    'hierarchy',
  ],
  [
    'csharp',
    'implements',
    'src/Shapes/Base.cs#Demo.Shapes.Base:class',
    'src/Shapes/IShape.cs#Demo.Shapes.IShape:interface',
    'scope',
  ],
  ['csharp', 'inherits', 'src/Shapes/Circle.cs#Circle:class', 'src/Shapes/Base.cs#Demo.Shapes.Base:class', 'scope'],
  [
    'csharp',
    'overrides',
    'src/Shapes/Circle.cs#Circle.Area:method',
    'src/Shapes/Base.cs#Demo.Shapes.Base.Area:method',
    'hierarchy',
  ],
  [
    'csharp',
    'references',
    'src/App/Program.cs#Demo.App.Program.Run:method',
    'src/Shapes/MathUtil.cs#Demo.Shapes.MathUtil.Square:method',
    'qualified',
  ],
  // Kotlin: imported top-level function and object; `: Base()` vs `: Iface`; constructor calls; `this.`; companion.
  [
    'kotlin',
    'calls',
    'src/main/kotlin/com/ex/Circle.kt#Circle.area:method',
    'src/main/kotlin/com/ex/util/MathUtil.kt#square:function',
    'import',
  ],
  [
    'kotlin',
    'calls',
    'src/main/kotlin/com/ex/Main.kt#App.run:method',
    'src/main/kotlin/com/ex/util/MathUtil.kt#Registry.register:method',
    'qualified',
  ],
  [
    'kotlin',
    'calls',
    'src/main/kotlin/com/ex/Main.kt#App.run:method',
    'src/main/kotlin/com/ex/Main.kt#Helper.help:method',
    'receiver_type',
  ],
  [
    'kotlin',
    'calls',
    'src/main/kotlin/com/ex/Main.kt#App.run:method',
    'src/main/kotlin/com/ex/Main.kt#App.report:method',
    'self',
  ],
  [
    'kotlin',
    'calls',
    'src/main/kotlin/com/ex/Main.kt#App.report:method',
    'src/main/kotlin/com/ex/Shape.kt#Base.describe:method~()',
    'hierarchy',
  ],
  [
    'kotlin',
    'calls',
    'src/main/kotlin/com/ex/Main.kt#main:function',
    'src/main/kotlin/com/ex/Circle.kt#Circle.unit:method',
    'qualified',
  ],
  [
    'kotlin',
    'calls',
    'src/main/kotlin/com/ex/Main.kt#main:function',
    'src/main/kotlin/com/ex/Main.kt#App:class',
    'scope',
  ],
  [
    'kotlin',
    'implements',
    'src/main/kotlin/com/ex/Shape.kt#Base:class',
    'src/main/kotlin/com/ex/Shape.kt#Shape:interface',
    'scope',
  ],
  [
    'kotlin',
    'inherits',
    'src/main/kotlin/com/ex/Circle.kt#Circle:class',
    'src/main/kotlin/com/ex/Shape.kt#Base:class',
    'scope',
  ],
  [
    'kotlin',
    'overrides',
    'src/main/kotlin/com/ex/Circle.kt#Circle.area:method',
    'src/main/kotlin/com/ex/Shape.kt#Shape.area:method',
    'hierarchy',
  ],
  // PHP: `use` imports, `new`, `$this->`, `self::`, `parent::__construct`, `Foo::bar()`, typed properties and
  // parameters, extends/implements.
  [
    'php',
    'calls',
    'src/App/Report.php#Report.__construct:constructor',
    'src/Shapes/Circle.php#Circle.__construct:constructor',
    'import',
  ],
  ['php', 'calls', 'src/App/Report.php#Report.total:method', 'src/Shapes/Shape.php#Shape.area:method', 'receiver_type'],
  ['php', 'calls', 'src/App/Report.php#Report.total:method', 'src/Shapes/Base.php#Base.describe:method', 'hierarchy'],
  ['php', 'calls', 'src/App/Report.php#Report.total:method', 'src/App/Report.php#Report.helper:method', 'self'],
  ['php', 'calls', 'src/Shapes/Base.php#Base.describe:method', 'src/Shapes/Base.php#Base.unit:method', 'self'],
  [
    'php',
    'calls',
    'src/Shapes/Circle.php#Circle.__construct:constructor',
    'src/Shapes/Base.php#Base.__construct:constructor',
    'hierarchy',
  ],
  ['php', 'calls', 'src/Shapes/Circle.php#Circle.area:method', 'src/Util/MathUtil.php#MathUtil.pi:method', 'qualified'],
  // Fully qualified names written inline: the longest prefix naming a namespace of the tree.
  ['php', 'calls', 'src/App/Fq.php#Fq.run:method', 'src/Util/MathUtil.php#MathUtil.pi:method', 'qualified'],
  ['php', 'calls', 'src/App/Fq.php#Fq.run:method', 'src/Util/MathUtil.php#square:function', 'qualified'],
  ['php', 'implements', 'src/Shapes/Base.php#Base:class', 'src/Shapes/Shape.php#Shape:interface', 'scope'],
  ['php', 'inherits', 'src/Shapes/Circle.php#Circle:class', 'src/Shapes/Base.php#Base:class', 'scope'],
  [
    'php',
    'overrides',
    'src/Shapes/Circle.php#Circle.area:method',
    'src/Shapes/Shape.php#Shape.area:method',
    'hierarchy',
  ],
  // Ruby: constants across files (`A::B.new` reaches initialize), reopened modules, `super` in initialize, `@x`
  // fields bound to a construction, `include` mixins, implicit self.
  [
    'ruby',
    'calls',
    'lib/report.rb#Report.initialize:constructor',
    'lib/shapes/circle.rb#Shapes.Circle.initialize:constructor',
    'qualified',
  ],
  ['ruby', 'calls', 'lib/report.rb#Report.total:method', 'lib/shapes/circle.rb#Shapes.Circle.unit:method', 'qualified'],
  [
    'ruby',
    'calls',
    'lib/report.rb#Report.total:method',
    'lib/shapes/circle.rb#Shapes.Circle.area:method',
    'receiver_type',
  ],
  [
    'ruby',
    'calls',
    'lib/shapes/circle.rb#Shapes.Circle.area:method',
    'lib/shapes.rb#Shapes.Util.square:method',
    'qualified',
  ],
  [
    'ruby',
    'calls',
    'lib/shapes/circle.rb#Shapes.Circle.initialize:constructor',
    'lib/shapes/base.rb#Shapes.Base.initialize:constructor',
    'hierarchy',
  ],
  [
    'ruby',
    'calls',
    'lib/report.rb#Report.total:method',
    'lib/shapes/base.rb#Shapes.Base.describe:method',
    'unique_name',
  ],
  ['ruby', 'inherits', 'lib/shapes/circle.rb#Shapes.Circle:class', 'lib/shapes/base.rb#Shapes.Base:class', 'self'],
  ['ruby', 'inherits', 'lib/shapes/base.rb#Shapes.Base:class', 'lib/shapes/base.rb#Shapes.Describable:class', 'self'],
  [
    'ruby',
    'references',
    'lib/shapes/base.rb#Shapes.Base.describe:method',
    'lib/shapes/base.rb#Shapes.Describable.label:method',
    'hierarchy',
  ],
  // C: same file first (a static function shadows another file's), then the directory's files.
  ['c', 'calls', 'src/main.c#main:function', 'src/main.c#twice:function', 'scope'],
  ['c', 'calls', 'src/main.c#main:function', 'src/util.c#square:function', 'scope'],
  ['c', 'calls', 'src/util.c#apply:function', 'src/util.c#twice:function', 'scope'],
  ['c', 'references', 'src/main.c#main:function', 'src/util.c#square:function', 'scope'],
  // C++: out-of-line members attach to their class, namespaces dropped from qualifiers, typed locals and `new`,
  // static members, base classes.
  ['cpp', 'calls', 'src/main.cpp#main:function', 'src/shape.cpp#geo.square:function', 'qualified'],
  ['cpp', 'calls', 'src/main.cpp#main:function', 'src/shape.cpp#Circle.unit:method', 'qualified'],
  ['cpp', 'calls', 'src/main.cpp#main:function', 'src/shape.cpp#Circle.area:method', 'receiver_type'],
  ['cpp', 'calls', 'src/main.cpp#report:function', 'src/shape.cpp#Shape.describe:method', 'receiver_type'],
  ['cpp', 'calls', 'src/shape.cpp#Circle.area:method', 'src/shape.cpp#geo.square:function', 'scope'],
  ['cpp', 'calls', 'src/shape.cpp#Circle.unit:method', 'src/shape.cpp#Circle.Circle:method', 'self'],
  ['cpp', 'inherits', 'src/shape.h#geo.Circle:class', 'src/shape.h#geo.Shape:class', 'scope'],
  // Bash: functions of the file and of sourced files.
  ['bash', 'calls', 'run.sh#main:function', 'run.sh#build:function', 'scope'],
  ['bash', 'calls', 'run.sh#build:function', 'lib/common.sh#log:function', 'qualified'],
  ['bash', 'calls', 'lib/common.sh#die:function', 'lib/common.sh#log:function', 'scope'],
  // Scala: packages, companion objects, traits labelled by kind, `new`, typed vals, abstract members.
  [
    'scala',
    'calls',
    'src/main/scala/ex/Circle.scala#Circle.area:method',
    'src/main/scala/ex/util/MathUtil.scala#MathUtil.square:method',
    'qualified',
  ],
  [
    'scala',
    'calls',
    'src/main/scala/ex/Main.scala#Main.main:method',
    'src/main/scala/ex/Circle.scala#Circle.unit:method',
    'qualified',
  ],
  [
    'scala',
    'calls',
    'src/main/scala/ex/Main.scala#Main.main:method',
    'src/main/scala/ex/Shape.scala#Shape.area:method',
    'receiver_type',
  ],
  [
    'scala',
    'calls',
    'src/main/scala/ex/Main.scala#Main.main:method',
    'src/main/scala/ex/Shape.scala#Base.label:method',
    'hierarchy',
  ],
  [
    'scala',
    'calls',
    'src/main/scala/ex/Main.scala#Main.helper:method',
    'src/main/scala/ex/Shape.scala#Shape.describe:method',
    'hierarchy',
  ],
  [
    'scala',
    'calls',
    'src/main/scala/ex/Shape.scala#Shape.describe:method',
    'src/main/scala/ex/Shape.scala#Shape.area:method',
    'self',
  ],
  [
    'scala',
    'implements',
    'src/main/scala/ex/Shape.scala#Base:class',
    'src/main/scala/ex/Shape.scala#Shape:trait',
    'scope',
  ],
  [
    'scala',
    'inherits',
    'src/main/scala/ex/Circle.scala#Circle:class',
    'src/main/scala/ex/Shape.scala#Base:class',
    'scope',
  ],
  [
    'scala',
    'overrides',
    'src/main/scala/ex/Circle.scala#Circle.area:method',
    'src/main/scala/ex/Shape.scala#Shape.area:method',
    'hierarchy',
  ],
  // Swift: constructions reach init, `super.init`, extensions (members of the type), protocols by kind.
  [
    'swift',
    'calls',
    'Sources/App/main.swift#Report.total:method',
    'Sources/Shapes/Circle.swift#Circle.init:constructor',
    'scope',
  ],
  [
    'swift',
    'calls',
    'Sources/App/main.swift#Report.total:method',
    'Sources/Shapes/Circle.swift#Circle.unit:method',
    'qualified',
  ],
  [
    'swift',
    'calls',
    'Sources/App/main.swift#Report.total:method',
    'Sources/Shapes/Shape.swift#Base.describe:method',
    'receiver_type',
  ],
  [
    'swift',
    'calls',
    'Sources/Shapes/Circle.swift#Circle.init:constructor',
    'Sources/Shapes/Shape.swift#Base.init:constructor',
    'hierarchy',
  ],
  [
    'swift',
    'calls',
    'Sources/Shapes/Shape.swift#Base.describe:method',
    'Sources/Shapes/Shape.swift#Base.area:method',
    'self',
  ],
  [
    'swift',
    'implements',
    'Sources/Shapes/Shape.swift#Base:class',
    'Sources/Shapes/Shape.swift#Shape:protocol',
    'scope',
  ],
  ['swift', 'inherits', 'Sources/Shapes/Circle.swift#Circle:class', 'Sources/Shapes/Shape.swift#Base:class', 'scope'],
  [
    'swift',
    'overrides',
    'Sources/Shapes/Circle.swift#Circle.area:method',
    'Sources/Shapes/Shape.swift#Base.area:method',
    'hierarchy',
  ],
  // Rust: `use` (with `as`), `mod x;` modules, `Type::assoc()`, `Self::`, `self.`, impl blocks in another file,
  // `impl Trait for T`, trait methods overridden, typed lets from a constructor's `-> Self`.
  ['rust', 'calls', 'src/lib.rs#total:function', 'src/util.rs#square:function', 'import'],
  ['rust', 'calls', 'src/lib.rs#unit_area:function', 'src/util.rs#square:function', 'qualified'],
  ['rust', 'calls', 'src/lib.rs#unit_area:function', 'src/shapes/circle.rs#Circle.unit:method', 'qualified'],
  ['rust', 'calls', 'src/lib.rs#unit_area:function', 'src/shapes/circle.rs#Circle.area:method', 'receiver_type'],
  ['rust', 'calls', 'src/lib.rs#helper:function', 'src/shapes/circle.rs#Circle.diameter:method', 'receiver_type'],
  ['rust', 'calls', 'src/shapes/circle.rs#Circle.unit:method', 'src/shapes/circle.rs#Circle.new:method', 'self'],
  ['rust', 'calls', 'src/shapes/circle.rs#Circle.area:method', 'src/util.rs#square:function', 'qualified'],
  ['rust', 'implements', 'src/shapes/circle.rs#Circle:struct', 'src/shapes/mod.rs#Shape:trait', 'import'],
  ['rust', 'overrides', 'src/shapes/circle.rs#Circle.area:method', 'src/shapes/mod.rs#Shape.area:method', 'hierarchy'],
];

test('symbol graph, more languages: each resolution rule gives its edge with its provenance', async () => {
  for (const [repo, label, from, to, provenance] of RULES) {
    const out = await graphOf(repo);
    const e = out.edges.find((x) => x.label === label && x.from === from && x.to === to);
    assert.ok(e, `${repo}: ${label} ${from} -> ${to}`);
    assert.equal(e.provenance, provenance, `${repo}: ${label} ${from} -> ${to}`);
    if (provenance === 'unique_name') assert.ok(e.confidence <= 0.5);
  }
});

test('symbol graph, more languages: what cannot be known stays unresolved, with its reason', async () => {
  const bash = await graphOf('bash');
  assert.ok(
    bash.unresolved.some((u) => u.from === 'run.sh#main:function' && u.text === '"$cmd"' && u.reason === 'dynamic'),
    'a command whose name is an expansion is dynamic',
  );
  const rust = await graphOf('rust');
  assert.ok(
    rust.unresolved.some((u) => u.from === 'src/lib.rs#total:function' && u.text === 's.area'),
    'a closure parameter without a type is not guessed',
  );
  // A local shadows: C's `twice` in main.c is main.c's own static function, never util.c's.
  const c = await graphOf('c');
  assert.ok(!c.edges.some((e) => e.from === 'src/main.c#main:function' && e.to === 'src/util.c#twice:function'));
  // A C# method group named like an overload is not mistaken for a call.
  const cs = await graphOf('csharp');
  assert.equal(cs.stats.by_language.csharp?.unresolved.dynamic ?? 0, 0);
});
