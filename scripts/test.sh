#!/usr/bin/env bash
# `npm test`: the whole test suite on a fresh machine. Installs dependencies when missing, starts the local stack
# (PostgreSQL + AGE + pgvector, Temporal) and builds the web explorer, installs headless Chromium when missing
# (the explorer's browser tests), then runs lint, typecheck and every test against the real parts.
# Arguments filter test files by substring: `npm test -- gateway`.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/stack.sh infra
bash scripts/stack.sh browser
set -a
# shellcheck disable=SC1091
source .stack/env
set +a

if [[ $# -eq 0 ]]; then
  # Lint, the import check and the typechecks run as jobs beside the test files (scripts/run-tests.mjs --checks): most test files
  # spend their time waiting, and the checks fill that time instead of adding ~2 minutes before the first test.
  echo "[test] lint, imports, typecheck and tests"
  node scripts/run-tests.mjs --checks
else
  echo "[test] tests"
  node scripts/run-tests.mjs "$@"
fi
