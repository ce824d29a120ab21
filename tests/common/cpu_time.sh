#!/usr/bin/env bash
# Runs a script test (CMD ARGS...) and, with T2O_TEST_CPU_DIR set, records the CPU time of its
# processes as tests/common/test_main.cpp does for googletest binaries ("<user> <system>" seconds in
# <dir>/<NAME>.cpu), for scripts/test_times.py.   cpu_time.sh NAME CMD ARGS...
name=$1
shift
"$@"
status=$?
if [ -n "${T2O_TEST_CPU_DIR:-}" ]; then
  # `times` prints the shell's own user/system times, then its children's: "0m1.250s 0m0.310s".
  # Not in a pipe or $(...): a subshell's `times` would show its own (empty) children.
  times_file=$(mktemp)
  times > "$times_file"
  children=$(tail -n 1 "$times_file")
  rm -f "$times_file"
  to_s() { local m=${1%%m*} s=${1#*m}; s=${s%s}; awk -v m="$m" -v s="$s" 'BEGIN { printf "%.3f", m * 60 + s }'; }
  set -- $children
  safe=$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_')
  printf '%s %s\n' "$(to_s "$1")" "$(to_s "$2")" > "$T2O_TEST_CPU_DIR/$safe.cpu"
fi
exit $status
