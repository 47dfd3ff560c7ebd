# Headless Chromium for the explorer's browser tests and bench (sourced by scripts/test.sh): Debian's `chromium`
# package, installed with apt-get when /usr/bin/chromium is missing (CI runs as root on a fresh Debian machine).
CHROMIUM=${CKG_CHROMIUM:-/usr/bin/chromium}

ensure_chromium() {
  [[ -x $CHROMIUM ]] && return 0
  if [[ $(id -u) -ne 0 ]]; then
    die "$CHROMIUM is missing; install Debian's chromium package (apt-get install chromium) or set CKG_CHROMIUM"
  fi
  say "installing chromium (apt-get)"
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } \
    >"$STATE_DIR/chromium-install.log" 2>&1 || die "installing chromium failed; see $STATE_DIR/chromium-install.log"
  [[ -x $CHROMIUM ]] || die "apt-get installed chromium but $CHROMIUM is still missing"
}
