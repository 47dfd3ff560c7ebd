# The precise tier's SCIP indexers (sourced by stack.sh; also runnable: `bash scripts/stack/indexers.sh [all|ts|py|go|java]`).
# Each is pinned and installed once per machine into $CACHE_DIR/scip/<indexer>-<version>, from the registries
# reached here, under a lock shared by every checkout; an installed one is left alone. The paths land in
# .stack/env (CKG_SCIP_TYPESCRIPT, CKG_SCIP_PYTHON, CKG_SCIP_GO, CKG_SCIP_JAVA_CLASSPATH) for the precise worker
# and the tests. What each indexer executes when it runs is written in docs/precise.md.
SCIP_TYPESCRIPT_VERSION=0.4.0 # npm @sourcegraph/scip-typescript (TypeScript and JavaScript)
SCIP_PYTHON_VERSION=0.6.6     # npm @sourcegraph/scip-python
SCIP_GO_VERSION=v0.2.9        # Go module proxy github.com/scip-code/scip-go
SCIP_JAVA_VERSION=0.10.3      # Maven Central com.sourcegraph:scip-java_2.13 (its jar carries the semanticdb-javac plugin)
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  source "$(dirname "$0")/common.sh"
fi
SCIP_DIR=$CACHE_DIR/scip

# npm_indexer NAME PACKAGE VERSION BIN: npm install into a private prefix (its own node_modules, its own lock).
npm_indexer_install() {
  local dir=$SCIP_DIR/$1-$3
  [[ -x $dir/node_modules/.bin/$4 ]] && return 0
  say "indexers: installing $2@$3 from npm into $dir"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  printf '{"name":"ckg-%s","private":true}\n' "$1" >"$dir.tmp/package.json"
  # --ignore-scripts: nothing of the package runs at install time (neither indexer needs an install script).
  (cd "$dir.tmp" && npm install --no-audit --no-fund --ignore-scripts --save-exact "$2@$3" >install.log 2>&1) \
    || { say "indexers: npm install $2@$3 failed; see $dir.tmp/install.log"; return 1; }
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

go_indexer_install() {
  local dir=$SCIP_DIR/go-$SCIP_GO_VERSION
  [[ -x $dir/bin/scip-go ]] && return 0
  command -v go >/dev/null || { say "indexers: no go toolchain; scip-go not installed"; return 1; }
  say "indexers: building github.com/scip-code/scip-go@$SCIP_GO_VERSION from the Go module proxy into $dir"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/bin"
  (GOBIN=$dir.tmp/bin GOFLAGS=-mod=mod go install "github.com/scip-code/scip-go/cmd/scip-go@$SCIP_GO_VERSION" >"$dir.tmp/install.log" 2>&1) \
    || { say "indexers: go install scip-go failed; see $dir.tmp/install.log"; return 1; }
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

# scip-java and the semanticdb javac plugin with their dependencies, as jars in one folder (mvn resolves them
# from Maven Central with a throwaway pom; nothing of the project's build is involved).
# The sync never runs the project's build with it: javac (with the semanticdb-javac plugin scip-java's jar carries,
# taken out here as lib/semanticdb-plugin.jar) compiles the sources with annotation processing off, then scip-java's
# index-semanticdb writes the index (activities/precise/indexers.ts, docs/precise.md).
java_plugin_extract() {
  local lib=$1
  [[ -f $lib/semanticdb-plugin.jar ]] && return 0
  (cd "$lib" && jar xf "scip-java_2.13-$SCIP_JAVA_VERSION.jar" semanticdb-plugin.jar) \
    || { say "indexers: semanticdb-plugin.jar not found in scip-java's jar"; return 1; }
}

java_indexer_install() {
  local dir=$SCIP_DIR/java-$SCIP_JAVA_VERSION
  if [[ -f $dir/.complete ]]; then java_plugin_extract "$dir/lib"; return; fi
  command -v mvn >/dev/null || { say "indexers: no mvn; scip-java not installed"; return 1; }
  command -v javac >/dev/null || { say "indexers: no JDK; scip-java not installed"; return 1; }
  say "indexers: fetching com.sourcegraph:scip-java_2.13:$SCIP_JAVA_VERSION from Maven Central into $dir"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  cat >"$dir.tmp/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.ckg</groupId><artifactId>scip-java-deps</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>com.sourcegraph</groupId><artifactId>scip-java_2.13</artifactId><version>$SCIP_JAVA_VERSION</version></dependency>
  </dependencies>
</project>
POM
  (cd "$dir.tmp" && mvn -q -B dependency:copy-dependencies -DoutputDirectory=lib >install.log 2>&1) \
    || { say "indexers: fetching scip-java failed; see $dir.tmp/install.log"; return 1; }
  java_plugin_extract "$dir.tmp/lib" || return 1
  touch "$dir.tmp/.complete"
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

indexers_install() {
  local which=${1:-all} ok=0
  mkdir -p "$SCIP_DIR"
  if [[ $which == all || $which == ts ]]; then
    if with_lock scip-install npm_indexer_install typescript @sourcegraph/scip-typescript "$SCIP_TYPESCRIPT_VERSION" scip-typescript; then
      env_set CKG_SCIP_TYPESCRIPT "$SCIP_DIR/typescript-$SCIP_TYPESCRIPT_VERSION/node_modules/.bin/scip-typescript"
    else ok=1; fi
  fi
  if [[ $which == all || $which == py ]]; then
    if with_lock scip-install npm_indexer_install python @sourcegraph/scip-python "$SCIP_PYTHON_VERSION" scip-python; then
      env_set CKG_SCIP_PYTHON "$SCIP_DIR/python-$SCIP_PYTHON_VERSION/node_modules/.bin/scip-python"
    else ok=1; fi
  fi
  if [[ $which == all || $which == go ]]; then
    if with_lock scip-install go_indexer_install; then
      env_set CKG_SCIP_GO "$SCIP_DIR/go-$SCIP_GO_VERSION/bin/scip-go"
    else ok=1; fi
  fi
  if [[ $which == all || $which == java ]]; then
    if with_lock scip-install java_indexer_install; then
      env_set CKG_SCIP_JAVA_LIB "$SCIP_DIR/java-$SCIP_JAVA_VERSION/lib"
    else ok=1; fi
  fi
  return $ok
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  indexers_install "${1:-all}"
fi
