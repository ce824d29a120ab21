#!/usr/bin/env bash
# A PyTorch 2.x environment for torch2onnx's PyTorch-2 fixtures and probes: a minimal Debian root
# built with debootstrap, with that release's python3-torch, python3-torchvision, python3-onnx and
# python3-numpy installed in it. The root lives outside the repository. Two releases are used:
#   trixie (default): Debian 13, PyTorch 2.6, torchvision 0.21
#   sid (T2O_TORCH2X_SUITE=sid): Debian sid, PyTorch 2.14, torchvision 0.27 (its Release files are
#                     past their Valid-Until date on the mirror: apt in the root does not check it)
#
#   bash scripts/torch2x_env.sh [build]        build the root or complete it (idempotent), print versions
#   bash scripts/torch2x_env.sh versions       print torch / torchvision / onnx / numpy versions
#   bash scripts/torch2x_env.sh run [-o OUTDIR] SCRIPT [ARGS...]
#                                              run `python3 SCRIPT ARGS...` inside the root
#   bash scripts/torch2x_env.sh exec [-o OUTDIR] CMD [ARGS...]
#                                              run any command inside the root (e.g. bash)
#   bash scripts/torch2x_env.sh path           print the root's directory
#
# `run`/`exec` bind-mount the repository (and OUTDIR, and SCRIPT's folder when it lies elsewhere) at
# the same paths inside the root, so absolute paths and paths relative to the current directory mean
# the same inside and outside; files written there belong to root. They start in the current
# directory when it is under one of those mounts, else in the repository. The root must have been
# built first (`build`). Mounts are made in a private mount namespace (unshare) where possible and
# unmounted on exit in any case, so concurrent runs do not disturb each other.
#
# Environment:
#   T2O_TORCH2X_SUITE   trixie (default) or sid
#   T2O_TORCH2X_ROOT    the root's directory (default $HOME/.cache/torch2onnx/SUITE-root)
#   T2O_TORCH2X_PACKAGES more Debian packages to install in the root (space-separated)
#   T2O_TORCH2X_MIRROR  Debian mirror (default: the URIs of the main Debian suite in the host's apt
#                       sources: /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list)
#   T2O_HEAVY           a command prefix for the CPU-heavy steps (package installation, Python runs),
#                       e.g. a lock wrapper on a shared machine; downloads run without it
#   T2O_TORCH2X_ENV     extra VAR=VALUE pairs (space-separated) passed to `run`/`exec`
# Variables named T2O_* and OPENBLAS_NUM_THREADS/OMP_NUM_THREADS/PYTHONHASHSEED are passed through to
# `run`/`exec`.
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
REPO=$(cd "$(dirname "$SELF")/.." && pwd -P)
SUITE=${T2O_TORCH2X_SUITE:-trixie}
case "$SUITE" in trixie|sid) ;; *) printf 'torch2x_env.sh: T2O_TORCH2X_SUITE is trixie or sid, not %s\n' "$SUITE" >&2; exit 1 ;; esac
ROOTDIR=${T2O_TORCH2X_ROOT:-$HOME/.cache/torch2onnx/$SUITE-root}
PACKAGES=(python3-torch python3-torchvision python3-onnx python3-numpy)
# shellcheck disable=SC2206
[ -z "${T2O_TORCH2X_PACKAGES:-}" ] || PACKAGES+=($T2O_TORCH2X_PACKAGES)
HEAVY=${T2O_HEAVY:-}
log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'torch2x_env.sh: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot and mounts)"
mkdir -p "$(dirname "$ROOTDIR")"
ROOTDIR=$(readlink -m "$ROOTDIR")
case "$ROOTDIR" in "$REPO"|"$REPO"/*) die "the root must lie outside the repository ($ROOTDIR)";; /) die "refusing root /";; esac

# --- mounts ----------------------------------------------------------------------------------------
MOUNTED=()
cleanup() {
  local i
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
    umount "${MOUNTED[i]}" 2>/dev/null || umount -l "${MOUNTED[i]}" 2>/dev/null || true
  done
  MOUNTED=()
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

is_mounted() { awk -v p="$1" '$2 == p {f=1} END {exit !f}' /proc/self/mounts; }
# mount_in TYPE|bind SRC TARGET_INSIDE_ROOT
mount_in() {
  local kind=$1 src=$2 tgt=$ROOTDIR$3
  is_mounted "$tgt" && return 0
  if [ "$kind" = bind ]; then
    if [ -d "$src" ]; then mkdir -p "$tgt"; else mkdir -p "$(dirname "$tgt")"; [ -e "$tgt" ] || : >"$tgt"; fi
    mount --bind "$src" "$tgt" || return 1
  else
    mkdir -p "$tgt"
    mount -t "$kind" "$src" "$tgt" || return 1
  fi
  MOUNTED+=("$tgt")
}
mount_basics() {
  mount_in proc proc /proc || die "cannot mount /proc in $ROOTDIR"
  mount_in sysfs sysfs /sys 2>/dev/null || mount_in bind /sys /sys 2>/dev/null || true
  # minbase creates /dev's nodes itself when it may; otherwise (or for /dev/shm, ptys) use the host's.
  if [ ! -c "$ROOTDIR/dev/null" ] || [ ! -c "$ROOTDIR/dev/urandom" ]; then
    mount_in bind /dev /dev || die "cannot bind /dev in $ROOTDIR"
  elif [ -d /dev/pts ]; then
    mount_in bind /dev/pts /dev/pts 2>/dev/null || true  # apt's terminal log
  fi
}
# Re-executes this script in a private mount namespace, so the mounts are its own and vanish with it.
private_ns() {
  if [ -z "${T2O_TORCH2X_NS:-}" ] && command -v unshare >/dev/null 2>&1 &&
     unshare --mount --propagation private true 2>/dev/null; then
    T2O_TORCH2X_NS=1 exec unshare --mount --propagation private "$SELF" "$@"
  fi
}

# --- mirror ----------------------------------------------------------------------------------------
host_mirror() {
  if [ -n "${T2O_TORCH2X_MIRROR:-}" ]; then echo "$T2O_TORCH2X_MIRROR"; return; fi
  local f=/etc/apt/sources.list.d/debian.sources m=""
  if [ -f "$f" ]; then
    # deb822: the stanza whose Suites are the main suite (not -security, -updates, -backports)
    m=$(awk '
      function flush() { if (!done && uri != "" && main) { print uri; done=1; exit } uri=""; main=0 }
      /^[[:space:]]*$/ { flush(); next }
      /^URIs:/ { uri=$2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i !~ /-/) main=1 }
      END { flush() }' "$f")
  fi
  if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
    m=$(awk '$1 == "deb" && $3 !~ /-/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' /etc/apt/sources.list)
  fi
  [ -n "$m" ] || die "no Debian mirror in the host's apt sources; set T2O_TORCH2X_MIRROR"
  echo "$m"
}

in_root() {  # in_root CMD... : runs a command in the root with a clean environment
  chroot "$ROOTDIR" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
}

print_versions() {
  $HEAVY chroot "$ROOTDIR" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/bin:/bin python3 - <<'EOF'
import importlib
for m in ("torch", "torchvision", "onnx", "numpy"):
    try:
        print(f"{m} {importlib.import_module(m).__version__}")
    except Exception as e:  # keep going: report what is missing
        print(f"{m} MISSING ({type(e).__name__}: {e})")
EOF
}

# --- build -----------------------------------------------------------------------------------------
cmd_build() {
  private_ns build
  exec 9>"$ROOTDIR.lock"
  flock 9
  local mirror stamp=$ROOTDIR/.t2o-debootstrap-done
  mirror=$(host_mirror)
  if ! command -v debootstrap >/dev/null 2>&1; then
    log "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap
  fi
  if [ ! -f "$stamp" ]; then
    if [ -e "$ROOTDIR" ]; then
      if awk -v p="$ROOTDIR/" 'index($2, p) == 1 {f=1} END {exit !f}' /proc/self/mounts; then
        die "$ROOTDIR is half-built and has mounts under it; unmount them first"
      fi
      # A half-built root (an interrupted debootstrap): start over, but keep its downloaded packages.
      log "removing the half-built root $ROOTDIR (keeping its downloaded .debs)"
      local keep=$ROOTDIR.debs
      mkdir -p "$keep"
      find "$ROOTDIR/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec mv -t "$keep" {} + 2>/dev/null || true
      rm -rf --one-file-system "$ROOTDIR"
      mkdir -p "$ROOTDIR/var/cache/apt/archives"
      find "$keep" -maxdepth 1 -name '*.deb' -exec mv -t "$ROOTDIR/var/cache/apt/archives" {} + 2>/dev/null || true
      rmdir "$keep"
    fi
    log "debootstrap --variant=minbase $SUITE $ROOTDIR $mirror (download)"
    debootstrap --variant=minbase --download-only "$SUITE" "$ROOTDIR" "$mirror"
    log "debootstrap (install)"
    $HEAVY debootstrap --variant=minbase "$SUITE" "$ROOTDIR" "$mirror"
    touch "$stamp"
  fi
  # apt in the root: the same mirror, deb822 sources, no recommends; no Valid-Until check (a
  # snapshot mirror's Release files may have expired).
  local suites="$SUITE $SUITE-updates"
  [ "$SUITE" != sid ] || suites=sid  # sid has no -updates
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" "$suites" >"$ROOTDIR/etc/apt/sources.list.d/debian.sources"
  [ ! -s "$ROOTDIR/etc/apt/sources.list" ] || : >"$ROOTDIR/etc/apt/sources.list"
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\nAcquire::Check-Valid-Until "false";\n' \
    >"$ROOTDIR/etc/apt/apt.conf.d/90torch2onnx"
  cp -L /etc/resolv.conf "$ROOTDIR/etc/resolv.conf" 2>/dev/null || true
  mount_basics
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "apt-get install ${missing[*]} (in the root)"
    in_root apt-get update -q
    in_root apt-get install -y -q --no-install-recommends --download-only "${missing[@]}"
    $HEAVY chroot "$ROOTDIR" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
      PATH=/usr/sbin:/usr/bin:/sbin:/bin apt-get install -y -q --no-install-recommends "${missing[@]}"
    in_root apt-get clean
  else
    log "packages already installed in $ROOTDIR: ${PACKAGES[*]}"
  fi
  log "versions in $ROOTDIR"
  print_versions
}

# --- run / exec ------------------------------------------------------------------------------------
cmd_run() {  # cmd_run python|exec [-o OUTDIR] ARGS...
  local mode=$1; shift
  if [ "$mode" = python ]; then private_ns run "$@"; else private_ns exec "$@"; fi
  [ -f "$ROOTDIR/.t2o-debootstrap-done" ] && [ -x "$ROOTDIR/usr/bin/python3" ] ||
    die "no PyTorch 2.x root at $ROOTDIR: run 'bash scripts/torch2x_env.sh build' first"
  local outdir="" binds=("$REPO")
  while [ $# -gt 0 ]; do
    case "$1" in
      -o|--out) [ $# -ge 2 ] || die "$1 needs a directory"; outdir=$2; shift 2 ;;
      --) shift; break ;;
      *) break ;;
    esac
  done
  if [ $# -lt 1 ]; then
    if [ "$mode" = python ]; then die "usage: torch2x_env.sh run [-o OUTDIR] SCRIPT [ARGS...]"; fi
    die "usage: torch2x_env.sh exec [-o OUTDIR] CMD [ARGS...]"
  fi
  if [ -n "$outdir" ]; then
    mkdir -p "$outdir"
    binds+=("$(cd "$outdir" && pwd -P)")
  fi
  local script=""
  if [ "$mode" = python ]; then
    [ -f "$1" ] || die "no script $1"
    script=$(readlink -f "$1"); shift
    binds+=("$(dirname "$script")")
  fi
  mount_basics
  local b d covered
  for b in "${binds[@]}"; do
    covered=0
    for d in "${binds[@]}"; do
      [ "$d" != "$b" ] && case "$b/" in "$d"/*) covered=1 ;; esac
    done
    [ "$covered" = 1 ] || mount_in bind "$b" "$b" || die "cannot bind $b into $ROOTDIR"
  done
  local cwd workdir=$REPO
  cwd=$(pwd -P)
  for b in "${binds[@]}"; do case "$cwd/" in "$b"/*) workdir=$cwd ;; esac; done
  local envs=(HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" PYTHONDONTWRITEBYTECODE=1
              PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin) v
  while IFS='=' read -r v _; do
    case "$v" in T2O_TORCH2X_NS|T2O_HEAVY) ;; T2O_*|OPENBLAS_NUM_THREADS|OMP_NUM_THREADS|PYTHONHASHSEED) envs+=("$v=${!v}") ;; esac
  done < <(env)
  # shellcheck disable=SC2206
  [ -z "${T2O_TORCH2X_ENV:-}" ] || envs+=($T2O_TORCH2X_ENV)
  local rc=0
  if [ "$mode" = python ]; then
    $HEAVY chroot "$ROOTDIR" /usr/bin/env -i "${envs[@]}" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh \
      "$workdir" python3 "$script" "$@" || rc=$?
  else
    $HEAVY chroot "$ROOTDIR" /usr/bin/env -i "${envs[@]}" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh \
      "$workdir" "$@" || rc=$?
  fi
  return $rc
}

cmd=${1:-build}
[ $# -eq 0 ] || shift
case "$cmd" in
  build) cmd_build ;;
  versions)
    private_ns versions
    [ -x "$ROOTDIR/usr/bin/python3" ] || die "no root at $ROOTDIR: run 'bash scripts/torch2x_env.sh build' first"
    mount_basics
    print_versions ;;
  run) cmd_run python "$@" ;;
  exec) cmd_run exec "$@" ;;
  path) echo "$ROOTDIR" ;;
  -h|--help|help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$SELF" ;;
  *) die "unknown command '$cmd' (build, versions, run, exec, path, help)" ;;
esac
