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

http_ok() { curl -fsS -m 2 "$1" >/dev/null 2>&1; }

# start_service NAME ENTRY HEALTH_URL [VAR=VALUE ...]
start_service() {
  local name=$1 entry=$2 health=$3
  shift 3
  mkdir -p "$LOG_DIR" "$RUN_DIR"
  local pidfile=$RUN_DIR/$name.pid
  if pid_alive "$pidfile" && { [[ -z $health ]] || http_ok "$health"; }; then
    say "$name: already running (pid $(cat "$pidfile"))"
    return 0
  fi
  if [[ -n $health ]]; then
    local port
    port=$(sed -E 's#^https?://[^:/]+:([0-9]+).*#\1#' <<<"$health")
    port_in_use "$port" && die "$name: port $port is taken by another program; free it or change CKG_*_PORT"
  fi
  (
    cd "$REPO_ROOT"
    set -a
    source "$STATE_DIR/env"
    set +a
    exec env "$@" setsid node --import tsx "$entry" >>"$LOG_DIR/$name.log" 2>&1 </dev/null
  ) &
  echo $! >"$pidfile"
  if [[ -n $health ]]; then
    wait_for "$name" 90 http_ok "$health" || die "$name did not become healthy at $health; see $LOG_DIR/$name.log"
  else
    sleep 2
    pid_alive "$pidfile" || die "$name exited at start; see $LOG_DIR/$name.log"
  fi
  say "$name: started (log $LOG_DIR/$name.log)"
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
  )
  if [[ -z $EXTERNAL_EMBEDDING_URL ]]; then
    start_service model-host standins/model-host/main.ts "http://127.0.0.1:$EMBED_PORT/health" \
      "MODEL_HOST_EMBEDDINGS_PORT=$EMBED_PORT" "MODEL_HOST_CHAT_PORT=$CHAT_PORT" "LLM_API_KEY=${LLM_API_KEY:-}"
  fi
  if [[ -z $EXTERNAL_KEYCLOAK_URL ]]; then
    start_service idp standins/idp/main.ts "http://127.0.0.1:$IDP_PORT_LOCAL/health" \
      "IDP_PORT=$IDP_PORT_LOCAL" "KEYCLOAK_REALM=$REALM" "KC_GATEWAY_CLIENT_SECRET=$secret" "IDP_STATE_DIR=$STATE_DIR/idp"
  fi
  start_service graph graph-api/main.ts "http://127.0.0.1:$GRAPH_PORT/health" \
    "APP_PORT=$GRAPH_PORT" "INGESTION_SERVICE_URL=http://127.0.0.1:$INGESTION_PORT" "${common[@]}"
  start_service ingestion temporal/ingestion-main.ts "http://127.0.0.1:$INGESTION_PORT/health" "APP_PORT=$INGESTION_PORT"
  start_service worker temporal/worker-main.ts "" "WORKER_CLONE_DIR=$STATE_DIR/clones" "${common[@]}"
  start_service gateway gateway/main.ts "http://127.0.0.1:$GATEWAY_PORT/health" \
    "APP_PORT=$GATEWAY_PORT" "GRAPH_SERVICE_URL=http://127.0.0.1:$GRAPH_PORT" \
    "INGESTION_SERVICE_URL=http://127.0.0.1:$INGESTION_PORT" \
    "KEYCLOAK_URL=${EXTERNAL_KEYCLOAK_URL:-http://127.0.0.1:$IDP_PORT_LOCAL}" "KEYCLOAK_REALM=$REALM" \
    "KC_GATEWAY_CLIENT_SECRET=$secret" "CORS_ORIGINS=${CORS_ORIGINS:-[]}"
  env_set GATEWAY_URL "http://127.0.0.1:$GATEWAY_PORT"
  env_set KEYCLOAK_URL "${EXTERNAL_KEYCLOAK_URL:-http://127.0.0.1:$IDP_PORT_LOCAL}"
  env_set KEYCLOAK_REALM "$REALM"
}

services_down() {
  for s in gateway worker ingestion graph idp model-host; do stop_service "$s"; done
}

services_status() {
  for s in model-host idp graph ingestion worker gateway; do
    if pid_alive "$RUN_DIR/$s.pid"; then printf '%-10s up    pid %s\n' "$s" "$(cat "$RUN_DIR/$s.pid")"; else printf '%-10s down\n' "$s"; fi
  done
}
