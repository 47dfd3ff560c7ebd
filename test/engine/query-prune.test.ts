/**
 * The Go query's pruned walk (LanguagePlugin.queryPrune, parse.ts queryMatches): it must find exactly the matches of
 * the full walk, on hand-written cases where a definition hides inside a declaration and on a spread sample of the
 * Go standard library read in place (testdata with syntax errors included).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Parser from 'tree-sitter';
import { pluginById } from '../../engine/languages/registry.ts';
import { loadLanguage, nextWord, parseText, queryMatches } from '../../engine/parse.ts';
import type { LoadedLanguage } from '../../engine/parse.ts';
import { corpora, listCorpus } from './corpora.ts';

/** Each match as pattern index and its captures' names and spans: what the analysis reads of it. */
function matchesOf(lang: LoadedLanguage, text: string): string[] {
  const tree = parseText(lang, text);
  assert.ok(tree, 'parsed');
  return queryMatches(lang, tree.rootNode, text).map(
    (m: Parser.QueryMatch) =>
      `${m.pattern}:${m.captures.map((c) => `${c.name}@${c.node.startIndex}-${c.node.endIndex}`).join(',')}`,
  );
}

async function goLanguages(): Promise<{ pruned: LoadedLanguage; full: LoadedLanguage }> {
  const pruned = await loadLanguage(pluginById('go')!, 'x.go');
  assert.ok(pruned.prune, 'the Go plugin prunes its query walk');
  return { pruned, full: { ...pruned, prune: null } };
}

describe('pruned query walk (Go)', () => {
  it('finds type declarations inside functions, methods and function literals of var and const declarations', async () => {
    const { pruned, full } = await goLanguages();
    const text = [
      'package p',
      'import ("fmt"; "os")',
      'func F() { type local struct{ a int }; _ = local{} }',
      'func (r *R) M() { func() { type deeper interface{ X() } }() }',
      'var v = func() int { type inVar struct{}; return 0 }()',
      'const c = 1 // no type declaration here, only the word in a comment',
      'type (A struct{}; B interface{ Y() })',
      'func G() { fmt.Println(os.Args) }',
      '',
    ].join('\n');
    const got = matchesOf(pruned, text);
    assert.deepEqual(got, matchesOf(full, text));
    // function F, local, method M, deeper and its method X, inVar, A, B and its method Y, function G, and two imports.
    assert.equal(got.length, 12);
  });

  it('takes the word only as a whole word: a name containing it neither hides nor stands in for a declaration', async () => {
    assert.equal(nextWord('types rtype _type typeName type2', 'type', 0), -1);
    assert.equal(nextWord('x types;type T int', 'type', 0), 8);
    assert.equal(nextWord('{type(', 'type', 0), 1);
    assert.equal(nextWord('type', 'type', 0), 0);
    assert.equal(nextWord('étype typeé', 'type', 0), -1);
    assert.equal(nextWord('a type b type', 'type', 3), 9);
    const { pruned, full } = await goLanguages();
    const text = [
      'package p',
      'func F(types []string) { var rtype, _type, typeName int; _ = types }',
      'func G(types []string) {type local struct{}; _ = types }',
      'func H() { x := 1;type(semi interface{}) }',
      'func I() { _ = "type" } // the word in a string or comment is walked, harmlessly',
      '',
    ].join('\n');
    const got = matchesOf(pruned, text);
    assert.deepEqual(got, matchesOf(full, text));
    // F, G, local, H, semi, I.
    assert.equal(got.length, 6);
  });

  it('walks a declaration with a syntax error whole', async () => {
    const { pruned, full } = await goLanguages();
    const text = 'package p\nfunc F() { x := ; type T struct{} }\nfunc G() {}\n';
    assert.deepEqual(matchesOf(pruned, text), matchesOf(full, text));
  });

  it('gives the full walk’s matches on a sample of the Go standard library', async () => {
    const { pruned, full } = await goLanguages();
    const go = corpora().find((c) => c.name === 'go-std')!;
    const files = listCorpus(go).filter((f) => f.endsWith('.go'));
    const sample = files.filter((_, i) => i % 12 === 0);
    assert.ok(sample.length > 500, `sample of ${sample.length} files`);
    let matches = 0;
    for (const f of sample) {
      const text = readFileSync(join(go.root, f), 'utf8');
      if (text.length > 2 * 1024 * 1024) continue;
      const a = matchesOf(pruned, text);
      assert.deepEqual(a, matchesOf(full, text), f);
      matches += a.length;
    }
    assert.ok(matches > 5000, `${matches} matches`);
  });
});
