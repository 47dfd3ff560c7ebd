# The service's own processes for the local stack (sourced by stack.sh): the model-host and identity-provider
# stand-ins, the graph component, the ingestion component, the worker and the gateway. Each runs in the
# background with a pid file and a log under .stack/; `up` is idempotent (a healthy process is left alone).
LOG_DIR=$STATE_DIR/logs
RUN_DIR=$STATE_DIR/run
GATEWAY_PORT=${CKG_GATEWAY_PORT:-8080}
INGESTION_PORT=${CKG_INGESTION_PORT:-8081}
GRAPH_PORT=${CKG_GRAPH_PORT:-8082}
EMBED_PORT=${CKG_EMBEDDING_PORT:-8101}
CHAT_PORT=${CKG_CHAT_PORT:-8102}
IDP_PORT_LOCAL=${CKG_IDP_PORT:-8180}
# How long a starting process may take to become ready (the worker bundles its workflows at start: slow on a loaded
# machine).
START_TIMEOUT=${CKG_START_TIMEOUT_SECONDS:-90}
# The operators' ports (/metrics, /ready) of the gateway and the worker: 8090 and 8093 by default, and next to the
# gateway's port when CKG_GATEWAY_PORT moves it.
GATEWAY_METRICS_PORT=${CKG_GATEWAY_METRICS_PORT:-$((GATEWAY_PORT + 10))}
WORKER_METRICS_PORT=${CKG_WORKER_METRICS_PORT:-$((GATEWAY_PORT + 13))}
PRECISE_METRICS_PORT=${CKG_PRECISE_METRICS_PORT:-$((GATEWAY_PORT + 14))}
REALM=${KEYCLOAK_REALM:-service}
# External model host / identity provider, as the caller set them. Read now, when this file is sourced: stack.sh
# later loads $STATE_DIR/env, which holds the KEYCLOAK_URL of the previous `up` (our own stand-in), and that must
# not pass for an external provider (a second `up`, or `up` after `down`, would then never start the stand-in).
EXTERNAL_EMBEDDING_URL=${EMBEDDING_URL:-}
EXTERNAL_DENSE_LLM_URL=${DENSE_LLM_URL:-}
EXTERNAL_KEYCLOAK_URL=${KEYCLOAK_URL:-}

# The service-gateway client secret of the local identity provider: made once, kept in .stack/ (mode 0600).
gateway_secret() {
  local f=$STATE_DIR/gateway-client-secret
  if [[ ! -s $f ]]; then
    (umask 077 && head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$f")
  fi
  cat "$f"
}

# GET URL answers 2xx. curl when the host has it, else Node (a fresh machine may lack curl; Node is required).
http_ok() {
  if command -v curl >/dev/null; then
    curl -fsS -m 2 "$1" >/dev/null 2>&1
  else
    node -e 'fetch(process.argv[1], { signal: AbortSignal.timeout(2000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$1" >/dev/null 2>&1
  fi
}

# logged_since FILE OFFSET EVENT -> 0 when FILE, from byte OFFSET on, has a JSON log line with "event":"EVENT".
logged_since() { tail -c "+$(($2 + 1))" "$1" 2>/dev/null | grep -q "\"event\":\"$3\""; }

# start_service NAME ENTRY READY [VAR=VALUE ...]
# READY is a health URL (http://host:port/health), or log:EVENT for a process without HTTP (ready once it logs EVENT).
start_service() {
  local name=$1 entry=$2 ready=$3
  shift 3
  mkdir -p "$LOG_DIR" "$RUN_DIR"
  local pidfile=$RUN_DIR/$name.pid log=$LOG_DIR/$name.log
  if pid_alive "$pidfile" && { [[ $ready == log:* ]] || http_ok "$ready"; }; then
    say "$name: already running (pid $(cat "$pidfile"))"
    return 0
  fi
  # Alive but not ready yet (a start that outlasted an earlier wait on a loaded machine): wait for it rather than
  # start a second copy beside it.
  if pid_alive "$pidfile" && [[ $ready != log:* ]]; then
    say "$name: pid $(cat "$pidfile") is starting; waiting for it"
    local wait_until=$((SECONDS + START_TIMEOUT))
    until http_ok "$ready"; do
      pid_alive "$pidfile" || break
      ((SECONDS < wait_until)) || die "$name (pid $(cat "$pidfile")) did not become ready ($ready) within $START_TIMEOUT s; see $log"
      sleep 0.2
    done
    if pid_alive "$pidfile"; then
      say "$name: started (log $log)"
      return 0
    fi
  fi
  if [[ $ready != log:* ]]; then
    local port
    port=$(sed -E 's#^https?://[^:/]+:([0-9]+).*#\1#' <<<"$ready")
    port_in_use "$port" && die "$name: port $port is taken by another program; free it or change CKG_*_PORT"
  fi
  local offset
  offset=$(stat -c %s "$log" 2>/dev/null || echo 0)
  (
    cd "$REPO_ROOT"
    set -a
    source "$STATE_DIR/env"
    set +a
    exec env "$@" setsid node --import tsx "$entry" >>"$log" 2>&1 </dev/null
  ) &
  echo $! >"$pidfile"
  # Ready, or exited (fail at once rather than after the timeout), or out of time.
  local deadline=$((SECONDS + START_TIMEOUT))
  until if [[ $ready == log:* ]]; then logged_since "$log" "$offset" "${ready#log:}"; else http_ok "$ready"; fi; do
    pid_alive "$pidfile" || die "$name exited at start; see $log"
    ((SECONDS < deadline)) || die "$name did not become ready ($ready) within $START_TIMEOUT s; see $log"
    sleep 0.2
  done
  say "$name: started (log $log)"
}

stop_service() {
  local name=$1 pidfile=$RUN_DIR/$1.pid
  if pid_alive "$pidfile"; then
    local pid
    pid=$(cat "$pidfile")
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    say "$name: stopped"
  fi
  rm -f "$pidfile"
}

services_up() {
  local secret
  secret=$(gateway_secret)
  local common=(
    "EMBEDDING_URL=${EXTERNAL_EMBEDDING_URL:-http://127.0.0.1:$EMBED_PORT/v1/embeddings}"
    "DENSE_LLM_URL=${EXTERNAL_DENSE_LLM_URL:-http://127.0.0.1:$CHAT_PORT/v1/chat/completions}"
    "LLM_API_KEY=${LLM_API_KEY:-}"
    # The local stack indexes local repositories (paths, file://) and plain-http hosts: docs/security.md.
    "SOURCE_URL_SCHEMES=${SOURCE_URL_SCHEMES:-https,ssh,http,file}"
  )
  if [[ -z $EXTERNAL_EMBEDDING_URL ]]; then
    # MODEL_HOST_EMBEDDING_MODEL=minilm serves a real embedding model (all-MiniLM-L6-v2) instead of the lexical one.
    local model=${MODEL_HOST_EMBEDDING_MODEL:-lexical}
    [[ $model == minilm ]] && ensure_minilm
    start_service model-host standins/model-host/main.ts "http://127.0.0.1:$EMBED_PORT/health" \
      "MODEL_HOST_EMBEDDINGS_PORT=$EMBED_PORT" "MODEL_HOST_CHAT_PORT=$CHAT_PORT" "LLM_API_KEY=${LLM_API_KEY:-}" \
      "MODEL_HOST_EMBEDDING_MODEL=$model" "MODEL_HOST_PYTHON=$MINILM_PYTHON"
  fi
  if [[ -z $EXTERNAL_KEYCLOAK_URL ]]; then
    start_service idp standins/idp/main.ts "http://127.0.0.1:$IDP_PORT_LOCAL/health" \
      "IDP_PORT=$IDP_PORT_LOCAL" "KEYCLOAK_REALM=$REALM" "KC_GATEWAY_CLIENT_SECRET=$secret" "IDP_STATE_DIR=$STATE_DIR/idp" \
      "IDP_FRONTEND_REDIRECT_URIS=${IDP_FRONTEND_REDIRECT_URIS:-[\"http://127.0.0.1:$GATEWAY_PORT/*\",\"http://localhost:$GATEWAY_PORT/*\",\"http://localhost:3000/*\",\"http://127.0.0.1:3000/*\"]}"
  fi
  # The components and the operators' ports answer without a token: they listen on loopback only; the gateway (which
  # checks tokens) is the one public port (docs/security.md, docs/deployment.md).
  start_service graph graph-api/main.ts "http://127.0.0.1:$GRAPH_PORT/health" \
    "APP_HOST=127.0.0.1" "APP_PORT=$GRAPH_PORT" "INGESTION_SERVICE_URL=http://127.0.0.1:$INGESTION_PORT" "${common[@]}"
  start_service ingestion temporal/ingestion-main.ts "http://127.0.0.1:$INGESTION_PORT/health" \
    "APP_HOST=127.0.0.1" "APP_PORT=$INGESTION_PORT"
  start_service worker temporal/worker-main.ts "http://127.0.0.1:$WORKER_METRICS_PORT/health" \
    "WORKER_CLONE_DIR=$STATE_DIR/clones" "METRICS_HOST=127.0.0.1" "METRICS_PORT=$WORKER_METRICS_PORT" "${common[@]}"
  # The precise worker (issue 29): the SCIP indexers the stack installed (.stack/env CKG_SCIP_*), one queue per language.
  # It fetches the sources the sync worker clones, so it takes the same URL policy (local repositories included).
  if grep -q '^CKG_SCIP_' "$STATE_DIR/env" 2>/dev/null; then
    start_service precise-worker temporal/precise-worker-main.ts "http://127.0.0.1:$PRECISE_METRICS_PORT/health" \
      "PRECISE_WORK_DIR=$STATE_DIR/precise" "METRICS_HOST=127.0.0.1" "METRICS_PORT=$PRECISE_METRICS_PORT" \
      "SOURCE_URL_SCHEMES=${SOURCE_URL_SCHEMES:-https,ssh,http,file}"
  else
    say "precise-worker: no SCIP indexer installed (scripts/stack.sh indexers); syncs keep heuristic symbol edges"
  fi
  start_service gateway gateway/main.ts "http://127.0.0.1:$GATEWAY_PORT/health" \
    "APP_PORT=$GATEWAY_PORT" "GRAPH_SERVICE_URL=http://127.0.0.1:$GRAPH_PORT" \
    "INGESTION_SERVICE_URL=http://127.0.0.1:$INGESTION_PORT" \
    "KEYCLOAK_URL=${EXTERNAL_KEYCLOAK_URL:-http://127.0.0.1:$IDP_PORT_LOCAL}" "KEYCLOAK_REALM=$REALM" \
    "KC_GATEWAY_CLIENT_SECRET=$secret" "CORS_ORIGINS=${CORS_ORIGINS:-[]}" "METRICS_HOST=127.0.0.1" "METRICS_PORT=$GATEWAY_METRICS_PORT"
  env_set GATEWAY_URL "http://127.0.0.1:$GATEWAY_PORT"
  env_set KEYCLOAK_URL "${EXTERNAL_KEYCLOAK_URL:-http://127.0.0.1:$IDP_PORT_LOCAL}"
  env_set KEYCLOAK_REALM "$REALM"
}

services_down() {
  for s in gateway precise-worker worker ingestion graph idp model-host; do stop_service "$s"; done
}

services_status() {
  for s in model-host idp graph ingestion worker precise-worker gateway; do
    if pid_alive "$RUN_DIR/$s.pid"; then printf '%-10s up    pid %s\n' "$s" "$(cat "$RUN_DIR/$s.pid")"; else printf '%-10s down\n' "$s"; fi
  done
}
