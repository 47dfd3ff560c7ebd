/**
 * The symbols queries' matches read as offsets from the binding (engine/raw-matches.ts) must be the public
 * `Query.matches` answer: same matches (predicates applied), capture names, offsets, rows, node types and child
 * counts; and the raw path must be the one in use (else the symbol facts cost their node objects again).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type Parser from 'tree-sitter';
import { pluginById } from '../../engine/languages/registry.ts';
import { loadLanguage, parseText } from '../../engine/parse.ts';
import { matchSet, rawMatchesInUse, type MatchSet } from '../../engine/raw-matches.ts';

function describeSet(ms: MatchSet, text: string): string[] {
  const out: string[] = [];
  for (let m = 0; m < ms.matchCount; m++) {
    const caps: string[] = [];
    for (let k = ms.firstCapture(m); k < ms.endCapture(m); k++)
      caps.push(
        `${ms.captureName(k)}=${text.slice(ms.start(k), ms.end(k))}@${ms.row(k)}:${ms.node(k).type}/${ms.namedChildCount(k)}`,
      );
    out.push(`${ms.pattern(m)} ${caps.join(' ')}`);
  }
  return out;
}

function publicSet(matches: Parser.QueryMatch[], text: string): string[] {
  return matches.map(
    (m) =>
      `${m.pattern} ${m.captures
        .map(
          (c) =>
            `${c.name}=${text.slice(c.node.startIndex, c.node.endIndex)}@${c.node.startPosition.row}:${c.node.type}/${c.node.namedChildCount}`,
        )
        .join(' ')}`,
  );
}

const CASES: Array<[language: string, path: string, text: string]> = [
  [
    'go',
    'a.go',
    'package p\n\nimport h "net/http"\n\nfunc (s *S) Serve(w h.ResponseWriter) {\n\tx := New()\n\ts.run(x, F)\n}\n',
  ],
  // Predicates: `#eq? @_self "self"`, `#match?` on getattr/staticmethod.
  [
    'python',
    'a.py',
    'class A(B):\n    @staticmethod\n    def f(x: "T"):\n        return getattr(x, "y")()\n    def g(self):\n        self.h = H()\n        other.k = K()\n',
  ],
  // Non-ASCII text before the captures: offsets are UTF-16 code units.
  ['ruby', 'a.rb', '# é ü 漢字\nclass A < B\n  include M\n  def run\n    x = Foo.new\n    send(:y)\n  end\nend\n'],
  ['java', 'A.java', 'package p;\nclass A extends B { void f() { g(1, "s", new C()); this.h(A.class); } }\n'],
];

describe('raw query matches', () => {
  it('equal the public Query.matches for the symbols queries of several languages, predicates applied', async () => {
    for (const [id, path, text] of CASES) {
      const lang = await loadLanguage(pluginById(id)!, path);
      assert.ok(lang.symbolQuery, `${id} has a symbols query`);
      const tree = parseText(lang, text);
      assert.ok(tree, `${id} parsed`);
      const raw = describeSet(matchSet(lang.symbolQuery, tree.rootNode, text), text);
      assert.ok(raw.length > 3, `${id}: matches found`);
      assert.deepEqual(raw, publicSet(lang.symbolQuery.matches(tree.rootNode), text), id);
    }
    assert.equal(rawMatchesInUse(), true, 'the binding is read directly');
  });
});
