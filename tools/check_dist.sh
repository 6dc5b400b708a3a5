#!/usr/bin/env bash
# The distribution check (issue 4), run by .ci/run and by CI's `dist` job; about 5-10 minutes on 2 cores.
#
#  1. `python -m build` makes the sdist and, from the sdist alone, a wheel; the sdist holds the Cython sources
#     and no generated C or binary; `twine check --strict` accepts both for PyPI.
#  2. For every CPython >= 3.10 found on this machine: a wheel built from the sdist, repaired by auditwheel
#     (Linux), whose `auditwheel show` must name a manylinux platform; installed into a fresh virtual
#     environment with no compiler on the path (PATH = the venv's bin and a few symlinked tools, CC=/bin/false,
#     binaries only), where it must import from site-packages with IMPLEMENTATION == "cython" and pass the tests
#     (tools/test_installed.py): the whole suite with the tools' Python (in the background, meanwhile the
#     other wheels build), a quick core-only subset for the others.
#  3. `cibuildwheel --print-build-identifiers` lists exactly the intended wheel matrix.
#
# Environment: CHECK_DIST_TOOL_PYTHON (default python3) runs the tools, builds the first wheel and runs the
# whole suite, with CHECK_DIST_FULL_ENV (default "NARDY_FAST_IMPLEMENTATION=cython HYPOTHESIS_PROFILE=dev";
# "NARDY_FAST_IMPLEMENTATION= HYPOTHESIS_PROFILE=ci" runs both implementations, fully, and takes much longer)
# and CHECK_DIST_FULL_MARK (default "not slow": the tests marked slow, which the source tree's run covers,
# are left out; "" runs them too);
# CHECK_DIST_PYTHONS="python3.12 /path/to/python3.10 ..." replaces the search for CPythons (on PATH as
# python3.N, and pyenv's); CHECK_DIST_MIN_PYTHONS (default 1) is how many versions must be found;
# CHECK_DIST_KEEP=1 keeps the scratch directory. The last line is "check_dist: PASS ..." or "check_dist: FAIL ...".
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nardy-fast-dist.XXXXXX")
START=$SECONDS
STEP="start"
FAST_TESTS=(tests/test_api.py tests/test_perft.py tests/test_scenarios.py tests/test_readme.py)

log() { printf '[check_dist %4ds] %s\n' $((SECONDS - START)) "$*"; }
kill_tree() {
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$child"; done
    kill "$1" 2>/dev/null || true
}
finish() {
    local status=$?
    [[ -n ${FULL_PID:-} ]] && kill_tree "$FULL_PID"
    if [[ $status -ne 0 ]]; then
        echo "check_dist: FAIL at step '$STEP' after $((SECONDS - START))s (logs in $WORK)"
    elif [[ "${CHECK_DIST_KEEP:-0}" != "1" ]]; then
        rm -rf "$WORK"
    fi
    exit $status
}
trap finish EXIT
fail() { echo "ERROR: $*" >&2; exit 1; }

# --- tools: one venv with the pinned `dist` group of pyproject.toml ------------------------------------------
STEP="tools"
TOOL_PY=${CHECK_DIST_TOOL_PYTHON:-python3}
log "tools venv ($($TOOL_PY --version 2>&1)) in $WORK/tools"
"$TOOL_PY" -m venv "$WORK/tools"
T="$WORK/tools/bin"
{
    "$T/python" -m pip install --upgrade pip && (cd "$ROOT" && "$T/python" -m pip install --group dist)
} >"$WORK/tools.log" 2>&1 || { tail -30 "$WORK/tools.log"; fail "installing the tools"; }

# --- 1. sdist, and a wheel built from it ---------------------------------------------------------------------
STEP="build"
log "python -m build (sdist, then a wheel from the sdist)"
"$T/python" -m build --outdir "$WORK/dist" "$ROOT" >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; fail "python -m build"; }
SDIST=$(ls "$WORK"/dist/*.tar.gz)
WHEEL0=$(ls "$WORK"/dist/*.whl)
log "built $(basename "$SDIST") and $(basename "$WHEEL0")"

STEP="sdist contents"
tar -tzf "$SDIST" >"$WORK/sdist.txt"
for wanted in src_pyx/_core.pyx src_pyx/nardy_types.pxd src_pyx/games.pxi src_pyx/evaluators/race_eval.pxi src_pyx/nardy_compat.h docs/rules.md setup.py pyproject.toml LICENSE CHANGELOG.md README.md \
    nardy_fast/py.typed nardy_fast/_core.pyi nardy_fast/data/corpus.npz nardy_fast/data/perft.txt \
    nardy_fast/data/nets/short.npz nardy_fast/data/met/kazaross-xg2.txt tests/data/Kazaross-XG2.xml src_pyx/net_kernel.h \
    tests/conftest.py tools/test_installed.py; do
    grep -q "^[^/]*/$wanted\$" "$WORK/sdist.txt" || fail "the sdist lacks $wanted"
done
if grep -E '\.(c|so|pyd|o)$' "$WORK/sdist.txt"; then fail "the sdist ships generated C or binaries (above)"; fi

STEP="wheel contents"
"$T/python" - "$WHEEL0" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["nardy_fast/__init__.py", "nardy_fast/py.typed", "nardy_fast/_core.pyi", "nardy_fast/data/corpus.npz",
        "nardy_fast/reference/rules.py", "nardy_fast/cli/__init__.py", "nardy_fast/bench/__init__.py",
        "nardy_fast/training/trainer.py", "nardy_fast/cube/__init__.py", "nardy_fast/data/met/kazaross-xg2.txt"]
need += [f"nardy_fast/data/nets/{v}.npz" for v in ("long", "sixone", "short", "gulbar", "crazy")]
need += [f"nardy_fast/data/bench/{v}.npz" for v in ("short", "long", "sixone", "gulbar")]
missing = [n for n in need if n not in names]
if not any(n.startswith("nardy_fast/_core.") and n.endswith((".so", ".pyd")) for n in names):
    missing.append("nardy_fast/_core binary")
if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
    missing.append("LICENSE in .dist-info")
if missing:
    sys.exit(f"the wheel lacks {missing}")
EOF
"$T/twine" check --strict "$SDIST" "$WHEEL0" >"$WORK/twine.log" 2>&1 || { cat "$WORK/twine.log"; fail "twine check"; }
log "sdist and wheel contents ok; twine check --strict passed"

# --- 2. the CPythons found here --------------------------------------------------------------------------------
STEP="find Pythons"
declare -A PY_BY_VERSION=()
VERSIONS=()
consider() {
    local py=$1 info impl version recent threaded executable
    info=$("$py" -c 'import platform, sys; print(platform.python_implementation(), "%d.%d" % sys.version_info[:2], sys.version_info >= (3, 10), "t" in sys.abiflags, sys.executable)' 2>/dev/null) || return 0
    read -r impl version recent threaded executable <<<"$info"
    [[ $impl == CPython && $recent == True && $threaded == False ]] || return 0
    [[ -n ${PY_BY_VERSION[$version]:-} ]] && return 0
    "$py" -c 'import venv, ensurepip' 2>/dev/null || { log "skipping $py ($version): no venv/ensurepip"; return 0; }
    PY_BY_VERSION[$version]=$executable
    VERSIONS+=("$version")
}
if [[ -n ${CHECK_DIST_PYTHONS:-} ]]; then
    for py in $CHECK_DIST_PYTHONS; do consider "$py"; done
else
    consider "$TOOL_PY"
    for n in $(seq 10 20); do
        command -v "python3.$n" >/dev/null 2>&1 && consider "python3.$n"
    done
    for py in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python3.[0-9]*; do
        [[ -x $py && $py != *-config ]] && consider "$py"
    done
fi
mapfile -t VERSIONS < <(printf '%s\n' "${VERSIONS[@]}" | sort -t. -k2,2n)
[[ ${#VERSIONS[@]} -ge ${CHECK_DIST_MIN_PYTHONS:-1} ]] || fail "found ${#VERSIONS[@]} CPython >= 3.10, need ${CHECK_DIST_MIN_PYTHONS:-1}"
FULL=$("$T/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
[[ -n ${PY_BY_VERSION[$FULL]:-} ]] || fail "the tools' Python ($FULL) must be a CPython >= 3.10"
for v in "${VERSIONS[@]}"; do log "CPython $v: ${PY_BY_VERSION[$v]}"; done

# A PATH without a compiler: the venv's bin and symlinks to the few tools the run uses.
STEP="no-compiler PATH"
SHIM="$WORK/shim"
mkdir -p "$SHIM"
for tool in sh bash env uname; do
    target=$(command -v "$tool" 2>/dev/null) && ln -sf "$target" "$SHIM/$tool"
done
for compiler in cc gcc c++ g++ clang ld; do
    if PATH="$SHIM" command -v "$compiler" >/dev/null 2>&1; then fail "$compiler is on the stripped PATH"; fi
done

# Repair (Linux: auditwheel, which must name a manylinux platform), install into a fresh venv with no compiler
# and binaries only, run the tests there. Writes $WORK/result-<version>.txt; a failure exits non-zero.
install_and_test() {
    local v=$1 scope=$2 tag raw wheel venv show plat t0 summary
    tag="cp${v/./}"
    raw=$(ls "$WORK"/raw/*-"$tag"-*.whl)
    if [[ $(uname -s) == Linux ]]; then
        PATH="$T:$PATH" "$T/auditwheel" repair --wheel-dir "$WORK/wheelhouse-$v" "$raw" || return 1
        wheel=$(ls "$WORK"/wheelhouse-"$v"/*.whl)
        show=$(PATH="$T:$PATH" "$T/auditwheel" show "$wheel") || return 1
        echo "$show"
        plat=$(grep -o 'manylinux_[0-9]*_[0-9]*_[a-z0-9_]*' <<<"$show" | head -1) || true
        [[ -n $plat && $(basename "$wheel") == *"$plat"* ]] || { echo "ERROR: no manylinux platform tag"; return 1; }
    else
        wheel=$raw
        plat="(no auditwheel: not Linux)"
    fi
    venv="$WORK/venv-$v"
    "${PY_BY_VERSION[$v]}" -m venv "$venv" || return 1
    echo "+ pip install $(basename "$wheel")[test]  (PATH=$venv/bin:$SHIM CC=/bin/false, binaries only)"
    PATH="$venv/bin:$SHIM" CC=/bin/false CXX=/bin/false LDSHARED=/bin/false PIP_ONLY_BINARY=":all:" \
        "$venv/bin/python" -m pip install --quiet "${wheel}[test]" || return 1
    t0=$SECONDS
    if [[ $scope == full ]]; then
        # shellcheck disable=SC2086  # CHECK_DIST_FULL_ENV is a list of NAME=value words
        (cd "$WORK" && env PATH="$venv/bin:$SHIM" CC=/bin/false CXX=/bin/false $FULL_ENV \
            "$venv/bin/python" "$ROOT/tools/test_installed.py" "$ROOT" -q ${FULL_MARK:+-m "$FULL_MARK"}) || return 1
        scope="whole suite${FULL_MARK:+, -m '$FULL_MARK'}; $FULL_ENV"
    else
        (cd "$WORK" && env PATH="$venv/bin:$SHIM" CC=/bin/false CXX=/bin/false NARDY_FAST_IMPLEMENTATION=cython \
            "$venv/bin/python" "$ROOT/tools/test_installed.py" "$ROOT" -q -x "${FAST_TESTS[@]}") || return 1
        scope="quick subset: ${FAST_TESTS[*]#tests/}; core only"
    fi
    summary=$(grep -E '^=*.* passed' "$WORK/test-$v.log" | tail -1 | tr -d '=' | sed 's/^ *//; s/ *$//') || true
    echo "$tag $plat: $summary in $((SECONDS - t0))s ($scope)" >"$WORK/result-$v.txt"
}
FULL_ENV=${CHECK_DIST_FULL_ENV:-NARDY_FAST_IMPLEMENTATION=cython HYPOTHESIS_PROFILE=dev}
FULL_MARK=${CHECK_DIST_FULL_MARK-not slow}

# The tools' own Python runs the whole suite in the background, on the wheel built from the sdist above,
# while the other versions' wheels are built from the sdist and tested one after the other.
STEP="wheels and tests"
mkdir -p "$WORK/raw" "$WORK/sdist"
cp "$WHEEL0" "$WORK/raw/"
tar -xzf "$SDIST" -C "$WORK/sdist"
SRC=$(ls -d "$WORK"/sdist/*/)
log "cp${FULL/./}: whole suite against the installed wheel, in the background ($FULL_ENV; log test-$FULL.log)"
install_and_test "$FULL" full >"$WORK/test-$FULL.log" 2>&1 &
FULL_PID=$!
for v in "${VERSIONS[@]}"; do
    if [[ $v == "$FULL" ]]; then continue; fi
    tag="cp${v/./}"
    STEP="build $tag"
    log "$tag: wheel from the sdist"
    {
        "${PY_BY_VERSION[$v]}" -m venv "$WORK/build-$v" &&
            "$WORK/build-$v/bin/python" -m pip install --quiet --upgrade pip build &&
            "$WORK/build-$v/bin/python" -m build --wheel --outdir "$WORK/raw" "$SRC"
    } >"$WORK/build-$v.log" 2>&1 || { tail -40 "$WORK/build-$v.log"; fail "building the $tag wheel"; }
    STEP="test $tag"
    log "$tag: repair, install without a compiler, quick tests"
    install_and_test "$v" quick >"$WORK/test-$v.log" 2>&1 || { tail -60 "$WORK/test-$v.log"; fail "the $tag wheel"; }
    log "$(cat "$WORK/result-$v.txt")"
done
STEP="test cp${FULL/./} (whole suite)"
wait "$FULL_PID" || { tail -80 "$WORK/test-$FULL.log"; fail "the cp${FULL/./} wheel's whole suite"; }
log "$(cat "$WORK/result-$FULL.txt")"
grep -hE '^(nardy_fast .* from|implementation:|core:)' "$WORK"/test-*.log | sort -u | sed 's/^/    /'

# --- 3. the cibuildwheel matrix ----------------------------------------------------------------------------------
STEP="cibuildwheel"
: >"$WORK/identifiers.txt"
for platform in linux macos windows; do
    (cd "$ROOT" && "$T/cibuildwheel" --print-build-identifiers --platform "$platform") >>"$WORK/identifiers.txt"
done
"$T/python" - "$WORK/identifiers.txt" <<'EOF'
import sys
found = set(open(sys.argv[1]).read().split())
platforms = ["manylinux_x86_64", "manylinux_aarch64", "musllinux_x86_64", "musllinux_aarch64",
             "macosx_x86_64", "macosx_arm64", "win_amd64"]
need = {f"cp3{minor}-{platform}" for minor in range(10, 14) for platform in platforms}
missing = sorted(need - found)
unwanted = sorted(i for i in found if not i.startswith("cp3") or i.split("-")[0].endswith("t")
                  or i.split("-", 1)[1] not in platforms or int(i.split("-")[0][3:]) < 10)
if missing or unwanted:
    sys.exit(f"cibuildwheel identifiers: missing {missing}, unwanted {unwanted}")
print(f"{len(found)} builds: " + " ".join(sorted(found)))
EOF
NBUILDS=$(wc -w <"$WORK/identifiers.txt")
log "cibuildwheel --print-build-identifiers: $NBUILDS builds, as intended"

STEP="summary"
echo
cat "$WORK"/result-*.txt | sed 's/^/  /'
PLAT=$(cat "$WORK"/result-*.txt | grep -o 'manylinux_[0-9]*_[0-9]*_[a-z0-9_]*' | sort -u | paste -sd, -) || true
echo "check_dist: PASS in $((SECONDS - START))s: sdist and wheel from it; ${#VERSIONS[@]} CPythons (${VERSIONS[*]})" \
    "installed from wheels with no compiler, tested with the core; auditwheel: ${PLAT:-n/a}; cibuildwheel: $NBUILDS builds"
