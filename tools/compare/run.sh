#!/usr/bin/env bash
# Live comparison of this fork against upstream Optax (the release named by
# `upstream` of [tool.optax-fork] in pyproject.toml).
#
#   bash tools/compare/run.sh FORK_PYTHON UPSTREAM_PYTHON
#   bash tools/compare/run.sh FORK_PYTHON --upstream-tree PATH \
#       [--upstream-label main@COMMIT]
#
# FORK_PYTHON has the fork installed (editable or from the wheel);
# UPSTREAM_PYTHON has that upstream release. Both need jax, numpy and
# orbax-checkpoint. With --upstream-tree, upstream is a source checkout of its
# main branch instead, run by FORK_PYTHON with PYTHONPATH=PATH; it is labelled
# main@<commit> (--upstream-label, or the checkout's git HEAD), and the
# deviations that apply are those naming main (tools/fork_config.py). Each
# side runs `python -m tools.compare.NAME` with its current directory in a
# temporary directory outside the repository and PYTHONPATH naming a folder
# there that holds only a `tools` link to this package (tools/toolpath.py),
# so that `import tools` finds the repository's tools and `import optax` the
# interpreter's own package (or the tree's). Steps:
#   1. tools.compare.run_cases on both sides (in parallel),
#   2. tools.compare.compare against the [[comparison]] entries of
#      deviations.toml and the list of cases bit-identical to upstream
#      (bit_identical.toml),
#   3. checkpoint round trips (tools.compare.checkpoint): upstream saves and
#      the fork restores, then the fork saves and upstream restores.
# Exits non-zero if any step fails; every step runs even if an earlier one
# failed. Environment: COMPARE_ONLY (substring passed to run_cases --only),
# COMPARE_KEEP=1 keeps the temporary directory, COMPARE_CHECKPOINT_ONLY=1 runs
# step 3 alone. The caller's PYTHONPATH is kept after the tools folder (for
# the tree's side, the tree comes first and the caller's is dropped).
set -uo pipefail

usage() {
  echo "usage: $0 FORK_PYTHON UPSTREAM_PYTHON" >&2
  echo "       $0 FORK_PYTHON --upstream-tree PATH [--upstream-label LABEL]" >&2
  exit 2
}
[ "$#" -ge 2 ] || usage
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
fork_py="$(command -v "$1")" || usage
tree=""
label_args=()
up_py=""
if [ "$2" = --upstream-tree ]; then
  [ "$#" -eq 3 ] || { [ "$#" -eq 5 ] && [ "$4" = --upstream-label ]; } \
      || usage
  tree="$(cd "$3" && pwd)" || exit 2
  [ "$#" -eq 5 ] && label_args=(--upstream-label "$5")
else
  [ "$#" -eq 2 ] || usage
  up_py="$(command -v "$2")" || usage
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/optax-compare.XXXXXX")"
if [ "${COMPARE_KEEP:-0}" = 1 ]; then
  echo "compare: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
cd "$work" || exit 2
# A folder holding only `tools` (a link to this package), for PYTHONPATH.
toolpath="$work/toolpath"
mkdir -p "$toolpath" && ln -s "$repo/tools" "$toolpath/tools" || exit 2
fork=(env "PYTHONPATH=$toolpath${PYTHONPATH:+:$PYTHONPATH}" "$fork_py")
if [ -n "$tree" ]; then
  # The upstream side: the fork's interpreter importing the tree's optax.
  up=(env "PYTHONPATH=$tree:$toolpath" "$fork_py")
else
  up=(env "PYTHONPATH=$toolpath${PYTHONPATH:+:$PYTHONPATH}" "$up_py")
fi
start=$SECONDS
status=0

only=()
[ -n "${COMPARE_ONLY:-}" ] && only=(--only "$COMPARE_ONLY")

# The upstream side must not see the repository's optax, and must be the
# release the lanes compare against (or the tree's own optax).
up_file="$("${up[@]}" -c 'import optax; print(optax.__file__)')" || exit 2
case "$up_file" in
  "$repo"/*) echo "compare: ${up[*]} imports the fork ($up_file)" >&2; exit 2 ;;
esac
have="$("${up[@]}" -c 'import optax; print(optax.__version__)')" || exit 2
if [ -n "$tree" ]; then
  case "$up_file" in
    "$tree"/*) ;;
    *) echo "compare: PYTHONPATH=$tree imports optax from $up_file" >&2
       exit 2 ;;
  esac
  label="$("${fork[@]}" -m tools.upstream_status --upstream-tree \
      "$tree" "${label_args[@]}" --print-label)" || exit 2
  echo "compare: upstream $label (optax $have from $tree)"
else
  label="$("${fork[@]}" -m tools.fork_config upstream)" || exit 2
  if [ "$have" != "$label" ]; then
    echo "compare: ${up[*]} has optax $have, the lanes compare against" \
        "$label ([tool.optax-fork] in pyproject.toml)" >&2
    exit 2
  fi
fi

if [ "${COMPARE_CHECKPOINT_ONLY:-0}" != 1 ]; then
"${fork[@]}" -m tools.compare.run_cases --verbose --out "$work/fork.pkl" \
    "${only[@]}" >"$work/fork.log" 2>&1 &
fork_pid=$!
"${up[@]}" -m tools.compare.run_cases --verbose --out "$work/upstream.pkl" \
    "${only[@]}" \
    >"$work/upstream.log" 2>&1 &
up_pid=$!
wait "$fork_pid"; fork_rc=$?
wait "$up_pid"; up_rc=$?
tail -n 1 "$work/fork.log"
tail -n 1 "$work/upstream.log"
if [ "$fork_rc" -ne 0 ] || [ "$up_rc" -ne 0 ]; then
  echo "compare: run_cases failed (fork $fork_rc, upstream $up_rc)" >&2
  tail -n 20 "$work/fork.log" "$work/upstream.log" >&2
  exit 1
fi

"${fork[@]}" -m tools.compare.compare --fork "$work/fork.pkl" \
    --upstream "$work/upstream.pkl" --deviations "$repo/deviations.toml" \
    --bit-identical "$here/bit_identical.toml" --upstream-label "$label" \
    || status=1
fi

# Both saves, then both restores, each pair in parallel.
"${up[@]}" -m tools.compare.checkpoint save --dir "$work/ckpt_up" \
    >"$work/ckpt_up_save.log" 2>&1 &
up_pid=$!
"${fork[@]}" -m tools.compare.checkpoint save --dir "$work/ckpt_fork" \
    >"$work/ckpt_fork_save.log" 2>&1 &
fork_pid=$!
wait "$up_pid"; up_rc=$?
wait "$fork_pid"; fork_rc=$?
grep -v WARNING "$work/ckpt_up_save.log" | tail -n 20
grep -v WARNING "$work/ckpt_fork_save.log" | tail -n 20
if [ "$up_rc" -ne 0 ] || [ "$fork_rc" -ne 0 ]; then
  echo "compare: checkpoint save failed (upstream $up_rc, fork $fork_rc)" >&2
  status=1
else
  "${fork[@]}" -m tools.compare.checkpoint restore --dir "$work/ckpt_up" \
      >"$work/ckpt_fork_restore.log" 2>&1 &
  fork_pid=$!
  "${up[@]}" -m tools.compare.checkpoint restore --dir "$work/ckpt_fork" \
      >"$work/ckpt_up_restore.log" 2>&1 &
  up_pid=$!
  wait "$fork_pid"; fork_rc=$?
  wait "$up_pid"; up_rc=$?
  echo "upstream -> fork:"
  grep -v WARNING "$work/ckpt_fork_restore.log" | tail -n 20
  echo "fork -> upstream:"
  grep -v WARNING "$work/ckpt_up_restore.log" | tail -n 20
  [ "$fork_rc" -eq 0 ] && [ "$up_rc" -eq 0 ] || status=1
fi

echo "compare: done in $((SECONDS - start))s, status $status"
exit "$status"
