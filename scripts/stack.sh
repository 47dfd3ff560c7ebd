#!/usr/bin/env bash
# The local stack: `up`, `down`, `status` (and `infra` to start only PostgreSQL and Temporal).
# Idempotent: running `up` twice leaves one of everything. State in .stack/ (git-ignored);
# slow, shared installs (the trixie root with PostgreSQL, the temporal CLI) in $HOME/.cache/ckg.
source "$(dirname "$0")/stack/common.sh"
source "$(dirname "$0")/stack/pg.sh"
source "$(dirname "$0")/stack/temporal.sh"

usage() {
  cat <<USAGE
usage: scripts/stack.sh <command>
  up       start everything and run the demo
  infra    start PostgreSQL (+AGE, pgvector) and the Temporal dev server only
  down     stop everything this checkout started
  status   show what runs
Environment: DATABASE_URL (use an existing PostgreSQL 17 with age and vector), TEMPORAL_ADDRESS (use an existing
Temporal server), CKG_PG_PORT (55432), CKG_TEMPORAL_PORT (7233), CKG_TEMPORAL_UI_PORT (8233), CKG_STATE_DIR, CKG_CACHE_DIR.
USAGE
}

infra_up() {
  pg_up
  temporal_up
}

cmd=${1:-}
case $cmd in
  infra) infra_up ;;
  up)
    infra_up
    ;;
  down)
    temporal_down
    pg_down
    ;;
  status)
    pg_status
    temporal_status
    ;;
  *) usage; [[ -z $cmd ]] && exit 2 || exit 2 ;;
esac
