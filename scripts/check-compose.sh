#!/usr/bin/env bash
# Validates docker-compose.yml with `docker compose config` (no Docker engine needed). Installs the compose CLI
# plugin once from the Go module proxy (pinned) when the machine's docker client has none.
set -euo pipefail
cd "$(dirname "$0")/.."
COMPOSE_VERSION=v2.31.0
CACHE=${CKG_CACHE_DIR:-$HOME/.cache/ckg}
if ! docker compose version >/dev/null 2>&1; then
  if [[ ! -x $CACHE/gobin/cmd ]]; then
    echo "[compose] building docker compose $COMPOSE_VERSION from the Go module proxy (once; several minutes)"
    GOBIN=$CACHE/gobin go install "github.com/docker/compose/v2/cmd@$COMPOSE_VERSION"
  fi
  mkdir -p "$HOME/.docker/cli-plugins"
  cp "$CACHE/gobin/cmd" "$HOME/.docker/cli-plugins/docker-compose"
fi
CLIENT_SECRET=${CLIENT_SECRET:-check} docker compose config -q
CLIENT_SECRET=${CLIENT_SECRET:-check} docker compose --profile standins config -q
echo "[compose] docker-compose.yml is valid"
