# Shared helpers for the stack scripts (sourced, not run).
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STATE_DIR=${CKG_STATE_DIR:-$REPO_ROOT/.stack}
CACHE_DIR=${CKG_CACHE_DIR:-$HOME/.cache/ckg}
mkdir -p "$STATE_DIR" "$CACHE_DIR"

say() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] error: %s\n' "$*" >&2; exit 1; }

# port_in_use PORT -> 0 when something listens on 127.0.0.1:PORT (or any address).
port_in_use() {
  if command -v ss >/dev/null; then
    ss -H -ltn "sport = :$1" 2>/dev/null | grep -q . && return 0
    return 1
  fi
  # No iproute2 (a minimal image): something accepting a connection on 127.0.0.1 is a taken port.
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# pid_alive PIDFILE -> 0 when the process in PIDFILE runs.
pid_alive() {
  [[ -f $1 ]] || return 1
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null
}

# wait_for DESCRIPTION SECONDS COMMAND... -> polls COMMAND until it succeeds.
wait_for() {
  local what=$1 secs=$2
  shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# with_lock NAME COMMAND... -> runs COMMAND holding an exclusive lock shared by every checkout on this machine,
# so two checkouts (or CI and a session) never install into the shared cache at once.
with_lock() {
  local name=$1
  shift
  exec {lockfd}>"$CACHE_DIR/$name.lock"
  flock "$lockfd"
  "$@"
  local rc=$?
  flock -u "$lockfd"
  return $rc
}

# env_set KEY VALUE -> records KEY=VALUE in $STATE_DIR/env, read by the test runner and the components.
env_set() {
  local file=$STATE_DIR/env
  touch "$file"
  grep -v "^$1=" "$file" >"$file.tmp" || true
  printf '%s=%s\n' "$1" "$2" >>"$file.tmp"
  mv "$file.tmp" "$file"
}
