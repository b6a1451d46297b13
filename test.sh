#!/usr/bin/env bash
# The project's test command: builds the wheel in a fresh virtualenv and runs
# the lanes against it (not the source tree). `./test.sh` runs every lane,
# `--lane NAME` (repeatable) only those (after the wheel's build in any case),
# `--no-docs` all but docs. Environment: PYTHON, PYTEST_ARGS, OPTAX_TEST_FULL,
# OPTAX_UPSTREAM_TREE, OPTAX_UPSTREAM_LABEL, NEWEST_PYTHON, OPTAX_TEST_NEWEST,
# OPTAX_TEST_SHARD: tools/README.md says what they do and each lane runs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
all_lanes=(lint actionlint tools own upstream-suite newest compare fuzz ledger
           triage program-size main docs)
lanes=() skip_docs=0
while [ "$#" -gt 0 ]; do
  case "$1" in
    --no-docs) skip_docs=1 ;;
    --lane)
      [ "$#" -ge 2 ] || { echo "test.sh: --lane needs a name" >&2; exit 2; }
      case " ${all_lanes[*]} " in
        *" $2 "*) lanes+=("$2") ;;
        *) echo "test.sh: no lane $2 (lanes: ${all_lanes[*]})" >&2; exit 2 ;;
      esac
      shift ;;
    *) echo "test.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
# want LANE: whether LANE runs (every lane when none is named).
want() {
  [ "$1" != docs ] || [ "$skip_docs" = 0 ] || return 1
  [ "${#lanes[@]}" -eq 0 ] || [[ " ${lanes[*]} " == *" $1 "* ]]
}
needs_upstream=0
for lane in "${all_lanes[@]:3:9}"; do  # own to main
  want "$lane" && needs_upstream=1
done

start="$(( EPOCHSECONDS - SECONDS ))"
upstream_version="$(cd "$here" && "$python" -m tools.fork_config upstream)"
echo "comparing against upstream optax $upstream_version"
work="$(mktemp -d "${TMPDIR:-/tmp}/optax-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
step() { printf '\n=== %s (%ss)\n' "$1" "$SECONDS"; }
# Only `tools`: first on PYTHONPATH, it leaves `optax` the interpreter's own.
mkdir -p "$work/toolpath"
ln -s "$here/tools" "$work/toolpath/tools"
# background NAME COMMAND...: COMMAND in the background, its output in
# $work/NAME.log; wait_for NAME WHAT fails with that log if it failed.
declare -A pids=()
background() { "${@:2}" >"$work/$1.log" 2>&1 & pids[$1]=$!; }
wait_for() {
  wait "${pids[$1]}" && return
  { cat "$work/$1.log"; echo "test.sh: $2 failed"; } >&2
  exit 1
}
pip_install() { "$1" -m pip install -q "${@:2}"; }  # PYTHON PIP-ARGS...
make_venv() {  # PYTHON FOLDER [PACKAGE...]
  "$1" -m venv "$2"
  pip_install "$2/bin/python" --upgrade pip
  [ "$#" -eq 2 ] || pip_install "$2/bin/python" "${@:3}"
}
jax_of() { "$1" -c 'import jax; print(jax.__version__)'; }
versions_of() {
  "$1" -c 'import jax, jaxlib, platform; print(f"jax {jax.__version__} (jaxlib \
{jaxlib.__version__}) on Python {platform.python_version()}")'
}
# NEWEST_PYTHON, else the newest CPython >= 3.12 (on PATH, pyenv's) that runs.
newest_python() {
  [ -z "${NEWEST_PYTHON:-}" ] || { echo "$NEWEST_PYTHON"; return; }
  local c version
  for c in python3.15 python3.14 python3.13 python3.12 \
      "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python3; do
    version="$("$c" -c 'import sys, sysconfig
if (sys.implementation.name == "cpython" and sys.version_info >= (3, 12)
    and not sysconfig.get_config_var("Py_GIL_DISABLED")):
  print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null)" || continue
    [ -z "$version" ] || echo "$version $(command -v "$c")"
  done | sort -s -r -V -k1,1 | sed -n '1s/^[^ ]* //p'
}
# run_own PYTHON SHARD LOG LABEL [VAR=VALUE...]: PYTHON's optax's own tests
# (part SHARD if any) from $work, logged; prints the end, fails as pytest.
run_own() {
  local py="$1" shard="$2" log="$work/$3.log" label="$4" rc=0
  # shellcheck disable=SC2086
  (cd "$work" && env ${shard:+OPTAX_TEST_SHARD="$shard"} "${@:5}" "$py" -m \
      pytest -n auto --dist worksteal -q -p no:cacheprovider -rfE \
      --durations=15 "${markers[@]}" --pyargs optax ${PYTEST_ARGS:-}) \
      >"$log" 2>&1 || rc=$?
  grep -vE '^[.sxXuFE]+ *(\[ *[0-9]+%\])?$' "$log" | tail -n 80 || true
  own_summary="$(grep -E '(passed|failed|error|no tests ran)' "$log" \
      | tail -n 1 || true)"
  echo "pytest summary$label: ${own_summary:-<none>}"
  [ "$rc" -eq 0 ] && return
  echo "test.sh: pytest$label failed with exit code $rc" >&2
  exit "$rc"
}
# tools/lanes.py runs the other lanes: `python -m tools.lanes LANE ...`.
lanes_py() {
  (cd "$here" && "$python" -m tools.lanes "$@" --work "$work" --start "$start" \
      --upstream-version "$upstream_version" \
      ${upstream_wheel:+--upstream-wheel "$upstream_wheel"})
}
lane_own() {
  step "pytest (installed wheel, run from outside the repository\
${main_shard:+; part $main_shard})"
  run_own "$venv_py" "$main_shard" pytest ""
  summary="$own_summary"
}
lane_newest() {
  [ "$newest_lane" = 1 ] || return 0
  step "wait for the newest jax's virtualenv"
  wait_for newest_setup "installing the newest jax with $newest_py"
  local version
  version="$(versions_of "$newest_venv_py")"
  echo "newest jax lane: $version, $newest_py"
  if [ "$(jax_of "$newest_venv_py")" != "$jax_version" ]; then
    step "pytest on the newest jax: $version$part"
    run_own "$newest_venv_py" "$newest_shard" pytest_newest " ($version)" \
        OPTAX_GALLERY_DIR="$work/newest_gallery"
    tested+=("$version: the own tests$part")
    return
  fi
  echo "jax $jax_version is the newest: tested above, the lane is skipped"
  tested+=("(no newest jax lane: jax $jax_version, tested above, is the \
newest for $version)")
  [ -n "$newest_shard" ] || return 0
  step "pytest: parts 1,2/3, which the newest jax would have run"
  run_own "$venv_py" "$newest_shard" pytest_part1 "$part"
}
lane_main() {
  if [ -z "${OPTAX_UPSTREAM_TREE:-}" ]; then
    [ "${#lanes[@]}" -gt 0 ] || return 0
    echo "test.sh: the main lane needs OPTAX_UPSTREAM_TREE=PATH (a checkout \
of upstream main)" >&2
    exit 2
  fi
  local tree
  tree="$(cd "$OPTAX_UPSTREAM_TREE" && pwd)"
  lanes_py main --upstream-tree "$tree" \
      ${OPTAX_UPSTREAM_LABEL:+--upstream-label "$OPTAX_UPSTREAM_LABEL"}
  tested+=("upstream main at $tree: the fix ledger, the triage, the upstream \
patches, its test-suite, the live comparison (with jax $jax_version)")
}
# After lint, actionlint and tools: upstream's virtualenv, the tests' setting.
prepare_tests() {
  if [ "$needs_upstream" = 1 ]; then
    step "wait for the upstream virtualenv"
    wait_for upstream_setup "installing upstream optax $upstream_version"
    upstream_wheel="$(ls "$work"/upstream_dist/optax-"$upstream_version"-*.whl)"
  fi
  export OPTAX_EXAMPLES_DIR="$here/examples" \
      OPTAX_GALLERY_DIR="$work/gallery" OPTAX_UPSTREAM_PYTHON="$upstream_py" \
      OPTAX_UPSTREAM_VERSION="$upstream_version"
  mkdir -p "$OPTAX_GALLERY_DIR" "$work/newest_gallery"
  markers=(-m "not slow")
  [ "${OPTAX_TEST_FULL:-0}" = 0 ] || markers=()
}

newest_lane=0
if want newest && [ "${OPTAX_TEST_NEWEST:-1}" != 0 ]; then
  newest_lane=1
  newest_py="$(newest_python)"
  if [ -z "$newest_py" ]; then
    echo "test.sh: no CPython >= 3.12 found (python3.1x on PATH, pyenv's" \
        "versions) for the newest jax lane: set NEWEST_PYTHON=PATH, or" \
        "OPTAX_TEST_NEWEST=0 to test without the newest jax" >&2
    exit 1
  fi
fi
# With the own lane and the newest, part 0/3 on the main jax, 1,2/3 on it.
main_shard="" newest_shard="" part="" summary="" upstream_wheel="" tested=()
if want own && [ "$newest_lane" = 1 ]; then
  main_shard=0/3 newest_shard=1,2/3 part=" (parts 1,2/3)"
fi

step "virtualenv in $work"
make_venv "$python" "$work/venv" build
venv_py="$work/venv/bin/python"
step "build the wheel"
"$venv_py" -m build -q --wheel --outdir "$work/dist" "$here" >/dev/null
wheel="$(ls "$work"/dist/optax-*.whl)"
echo "built $(basename "$wheel")"
step "install the wheel with the test, lint and docs extras"
pip_install "$venv_py" "${wheel}[test,lint,docs,examples]"
tools_optax="$(cd "$work" \
    && PYTHONPATH="$work/toolpath${PYTHONPATH:+:$PYTHONPATH}" \
    "$venv_py" -m tools.toolpath --optax)"
if [[ "$tools_optax" == "$here"/* ]]; then
  echo "test.sh: run_tool imports the checkout's optax ($tools_optax)," \
      "not the wheel's" >&2
  exit 1
fi
echo "run_tool: optax from $tools_optax"

newest_venv_py="$work/newest/bin/python"
setup_newest() {  # the wheel with the newest jax the registry offers
  make_venv "$newest_py" "$work/newest"
  local jax
  jax="$("$newest_venv_py" -m pip index versions jax 2>/dev/null \
      | sed -n 's/^jax (\(.*\))$/\1/p')"
  [ -n "$jax" ] \
      || { echo "pip index versions jax named no version" >&2; exit 1; }
  pip_install "$newest_venv_py" "${wheel}[test,examples]" "jax==$jax"
}
if [ "$newest_lane" = 1 ]; then
  step "the newest jax's virtualenv ($newest_py), installed in the background"
  background newest_setup setup_newest
fi
jax_version="$(jax_of "$venv_py")"
upstream_py="$work/upstream/bin/python"
setup_upstream() {
  make_venv "$python" "$work/upstream" "optax==$upstream_version" \
      "jax==$jax_version" "jaxlib==$jax_version" orbax-checkpoint pytest
  "$venv_py" -m pip download -q --no-deps --only-binary=:all: \
      "optax==$upstream_version" -d "$work/upstream_dist"
}
if [ "$needs_upstream" = 1 ]; then
  step "upstream optax $upstream_version in its own virtualenv (the \
comparison's oracle), installed in the background while the linters run"
  background upstream_setup setup_upstream
fi

for lane in "${all_lanes[@]}"; do
  [ "$lane" != own ] || prepare_tests
  want "$lane" || continue
  case "$lane" in
    own|newest|main) "lane_$lane" ;;
    *) lanes_py "$lane" ;;
  esac
done

step "done"
[ -z "$summary" ] || echo "$summary"
if [ "${#lanes[@]}" -gt 0 ]; then
  echo "lanes run: ${lanes[*]}"
  main_lane="the lanes above"
else
  main_lane="lint, the own tests${main_shard:+ (part $main_shard)}, upstream \
$upstream_version's suite, the live comparison, the fuzz lane, the fix \
ledger, the triage"
  ! want docs || main_lane+=", docs"
fi
printf 'jax versions tested:\n  %s: %s\n' "$(versions_of "$venv_py")" \
    "$main_lane"
[ "${#tested[@]}" -eq 0 ] || printf '  %s\n' "${tested[@]}"
[ "${OPTAX_TEST_NEWEST:-1}" != 0 ] \
    || echo "  (no newest jax lane: OPTAX_TEST_NEWEST=0)"
