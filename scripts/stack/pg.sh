# PostgreSQL 17 + Apache AGE + pgvector for the local stack (sourced by stack.sh).
#
# Three ways, first that applies:
#   1. DATABASE_URL is set: use it, after checking both extensions are available there.
#   2. The host has PostgreSQL 17 with the age and vector packages (Debian trixie / Ubuntu): run them natively.
#   3. Otherwise: a Debian trixie root under $CACHE_DIR (debootstrap, Debian's own packages), shared by every
#      checkout on the machine; each checkout's cluster lives in its own .stack/ folder, bind-mounted into the root.
PG_PORT=${CKG_PG_PORT:-55432}
PG_DB=${CKG_PG_DB:-ckg}
PG_ROOT=$CACHE_DIR/pg-trixie
PG_PACKAGES=(postgresql-17 postgresql-17-age postgresql-17-pgvector)
# The versions this project is tested with. AGE's label tables are written directly (see docs/decisions.md), so a
# different AGE minor version refuses to start rather than risk silent corruption.
PG_EXPECT_MAJOR=17
AGE_EXPECT=1.5
VECTOR_EXPECT=0.8
NATIVE_BIN=/usr/lib/postgresql/17/bin
CHECKOUT_ID=$(printf '%s' "$REPO_ROOT" | sha1sum | cut -c1-12)
PG_IN_ROOT=/srv/ckg/$CHECKOUT_ID        # where this checkout's state appears inside the trixie root
PG_STATE=$STATE_DIR/pg                 # on the host

pg_mode() {
  if [[ -n ${DATABASE_URL:-} && ${CKG_PG_MANAGED:-} != 1 ]]; then echo external
  elif [[ -x $NATIVE_BIN/postgres && -f /usr/share/postgresql/17/extension/age.control && -f /usr/share/postgresql/17/extension/vector.control ]]; then echo native
  else echo trixie
  fi
}

# psql of the host, else the trixie root's (a fresh machine has no PostgreSQL client; the root always has one).
psql_host() {
  if psql --version >/dev/null 2>&1; then
    PGCONNECT_TIMEOUT=3 psql -X -q -v ON_ERROR_STOP=1 "$@"
  elif [[ -x $PG_ROOT/usr/lib/postgresql/17/bin/psql && $(id -u) == 0 ]]; then
    PGCONNECT_TIMEOUT=3 chroot "$PG_ROOT" /usr/lib/postgresql/17/bin/psql -X -q -v ON_ERROR_STOP=1 "$@"
  else
    say "error: no psql: install postgresql-client (or run as root so the trixie root's psql is used)"
    return 127
  fi
}
local_url() { echo "postgresql://postgres@127.0.0.1:$PG_PORT/${1:-$PG_DB}"; }

pg_install_trixie() {
  if [[ -x $PG_ROOT/usr/lib/postgresql/17/bin/postgres && -f $PG_ROOT/usr/share/postgresql/17/extension/age.control \
    && -f $PG_ROOT/usr/share/postgresql/17/extension/vector.control ]]; then
    return 0
  fi
  say "installing PostgreSQL 17 + AGE + pgvector into a Debian trixie root at $PG_ROOT (once per machine, ~1 min)"
  [[ $(id -u) == 0 ]] || die "the trixie root needs root (chroot, mount); run as root, or set DATABASE_URL to a PostgreSQL 17 with age and vector"
  if ! command -v debootstrap >/dev/null && [[ ! -x /usr/sbin/debootstrap ]]; then
    say "installing debootstrap from Debian's packages"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null; } \
      || die "cannot install debootstrap (apt-get failed)"
  fi
  local tmp=$PG_ROOT.tmp
  pg_umount_all "$tmp"
  rm -rf "$tmp"
  PATH=$PATH:/usr/sbin debootstrap --variant=minbase --include=ca-certificates trixie "$tmp" http://deb.debian.org/debian \
    >"$CACHE_DIR/debootstrap.log" 2>&1 || die "debootstrap of trixie failed; see $CACHE_DIR/debootstrap.log"
  mount --bind /proc "$tmp/proc"
  {
    chroot "$tmp" apt-get update -q && chroot "$tmp" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "${PG_PACKAGES[@]}"
  } >"$CACHE_DIR/pg-apt.log" 2>&1 || { umount "$tmp/proc"; die "installing ${PG_PACKAGES[*]} in the trixie root failed; see $CACHE_DIR/pg-apt.log"; }
  umount "$tmp/proc"
  chroot "$tmp" dpkg-query -W -f='${Package} ${Version}\n' "${PG_PACKAGES[@]}" >"$tmp/ckg-versions.txt"
  mv "$tmp" "$PG_ROOT"
  say "installed: $(tr '\n' ';' <"$PG_ROOT/ckg-versions.txt")"
}

pg_umount_all() {
  local root=$1
  [[ -d $root ]] || return 0
  awk -v r="$root" '$2 ~ "^"r"/" {print $2}' /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
}

# Mounts this checkout's state folder into the trixie root (idempotent: mounts survive killed processes).
pg_mount_trixie() {
  mkdir -p "$PG_STATE" "$PG_ROOT$PG_IN_ROOT"
  # A mount left by an earlier checkout at this path (a state folder deleted, a fresh clone in its place) points at a
  # folder that no longer exists: it is replaced when the two sides are not the same folder.
  if grep -q " $PG_ROOT$PG_IN_ROOT " /proc/mounts &&
    [[ $(stat -c '%d:%i' "$PG_STATE") != $(stat -c '%d:%i' "$PG_ROOT$PG_IN_ROOT") ]]; then
    umount -l "$PG_ROOT$PG_IN_ROOT"
  fi
  grep -q " $PG_ROOT$PG_IN_ROOT " /proc/mounts || mount --bind "$PG_STATE" "$PG_ROOT$PG_IN_ROOT"
  grep -q " $PG_ROOT/dev/shm " /proc/mounts || { mkdir -p "$PG_ROOT/dev/shm" && mount -t tmpfs -o mode=1777 tmpfs "$PG_ROOT/dev/shm"; }
  grep -q " $PG_ROOT/proc " /proc/mounts || mount --bind /proc "$PG_ROOT/proc"
  chroot "$PG_ROOT" chown postgres:postgres "$PG_IN_ROOT"
}

# pg_run CMD ARGS... runs a PostgreSQL binary as the postgres user, in the root or natively. Paths are as the
# binary sees them: $PG_DATA_SEEN.
pg_run() {
  local cmd=$1
  shift
  if [[ $(pg_mode) == trixie ]]; then
    chroot --userspec=postgres:postgres "$PG_ROOT" "/usr/lib/postgresql/17/bin/$cmd" "$@"
  else
    if [[ $(id -u) == 0 ]]; then
      id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
      chown postgres "$PG_STATE"
      runuser -u postgres -- "$NATIVE_BIN/$cmd" "$@"
    else
      "$NATIVE_BIN/$cmd" "$@"
    fi
  fi
}

pg_seen_dir() { if [[ $(pg_mode) == trixie ]]; then echo "$PG_IN_ROOT"; else echo "$PG_STATE"; fi; }

pg_ready() { psql_host "$(local_url postgres)" -c 'select 1' >/dev/null 2>&1; }

pg_check_extensions() {
  local url=$1
  local avail
  avail=$(psql_host "$url" -At -c "select name || '=' || default_version from pg_available_extensions where name in ('age','vector') order by 1") \
    || die "cannot connect to $(printf '%s' "$url" | sed -E 's#//[^@]*@#//***@#')"
  grep -q '^age=' <<<"$avail" || die "the database has no Apache AGE extension available (need age $AGE_EXPECT.x)"
  grep -q '^vector=' <<<"$avail" || die "the database has no pgvector extension available (need vector $VECTOR_EXPECT.x)"
  local age vec
  age=$(sed -n 's/^age=//p' <<<"$avail")
  vec=$(sed -n 's/^vector=//p' <<<"$avail")
  [[ $age == $AGE_EXPECT* ]] || die "AGE $age found, this project is tested with $AGE_EXPECT.x"
  [[ $vec == $VECTOR_EXPECT* ]] || die "pgvector $vec found, this project is tested with $VECTOR_EXPECT.x"
  local server
  server=$(psql_host "$url" -At -c 'show server_version_num')
  ((server / 10000 >= PG_EXPECT_MAJOR)) || die "PostgreSQL $server found, need $PG_EXPECT_MAJOR or newer"
  echo "age $age, vector $vec, server $server"
}

pg_up() {
  local mode
  mode=$(pg_mode)
  if [[ $mode == external ]]; then
    say "postgres: using DATABASE_URL ($(pg_check_extensions "$DATABASE_URL"))"
    env_set DATABASE_URL "$DATABASE_URL"
    return 0
  fi
  [[ $mode == trixie ]] && with_lock pg-install pg_install_trixie
  mkdir -p "$PG_STATE"
  [[ $mode == trixie ]] && pg_mount_trixie
  local seen
  seen=$(pg_seen_dir)
  # Ours is running when its postmaster lives; on a loaded machine its first answer may take longer than psql's
  # connect timeout, so it gets 30 s before the port is said to be someone else's.
  local pid=
  [[ -f $PG_STATE/data/postmaster.pid ]] && pid=$(head -1 "$PG_STATE/data/postmaster.pid")
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && wait_for postgres 30 pg_ready; then
    say "postgres: already running on 127.0.0.1:$PG_PORT ($mode)"
  else
    if port_in_use "$PG_PORT"; then
      die "port $PG_PORT is taken by another program; free it or set CKG_PG_PORT to another port"
    fi
    if [[ ! -f $PG_STATE/data/PG_VERSION ]]; then
      say "postgres: creating a cluster in $PG_STATE/data ($mode)"
      pg_run initdb -D "$seen/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$PG_STATE/initdb.log" 2>&1 \
        || die "initdb failed; see $PG_STATE/initdb.log"
      cat >>"$PG_STATE/data/postgresql.conf" <<CONF
# --- set by scripts/stack/pg.sh ---
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$seen'
shared_preload_libraries = 'age'
max_connections = 300
shared_buffers = 512MB
work_mem = 16MB
maintenance_work_mem = 256MB
synchronous_commit = off
wal_level = minimal
max_wal_senders = 0
max_wal_size = 4GB
checkpoint_timeout = 15min
CONF
    fi
    sed -i -E "s/^port = [0-9]+$/port = $PG_PORT/" "$PG_STATE/data/postgresql.conf"
    rm -f "$PG_STATE/data/postmaster.pid"
    pg_run pg_ctl -D "$seen/data" -l "$seen/postgres.log" -w -t 60 start >/dev/null \
      || die "postgres failed to start; see $PG_STATE/postgres.log"
    wait_for postgres 30 pg_ready || die "postgres did not accept connections on 127.0.0.1:$PG_PORT; see $PG_STATE/postgres.log"
    say "postgres: started on 127.0.0.1:$PG_PORT ($mode)"
  fi
  psql_host "$(local_url postgres)" -At -c "select 1 from pg_database where datname = '$PG_DB'" | grep -q 1 \
    || psql_host "$(local_url postgres)" -c "create database $PG_DB" >/dev/null
  say "postgres: $(pg_check_extensions "$(local_url)")"
  env_set DATABASE_URL "$(local_url)"
}

pg_down() {
  [[ $(pg_mode) == external ]] && return 0
  if [[ -f $PG_STATE/data/postmaster.pid ]]; then
    [[ $(pg_mode) == trixie ]] && pg_mount_trixie
    pg_run pg_ctl -D "$(pg_seen_dir)/data" -m fast -w stop >/dev/null 2>&1 || true
    say "postgres: stopped"
  else
    say "postgres: not running"
  fi
}

pg_status() {
  case $(pg_mode) in
    external) if psql_host "$DATABASE_URL" -c 'select 1' >/dev/null 2>&1; then echo "postgres   up (DATABASE_URL)"; else echo "postgres   DOWN (DATABASE_URL unreachable)"; fi ;;
    *) if pg_ready; then echo "postgres   up    127.0.0.1:$PG_PORT ($(pg_mode), data in $PG_STATE/data)"; else echo "postgres   down"; fi ;;
  esac
}
