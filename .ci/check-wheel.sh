#!/usr/bin/env bash
# The installed package must not need the source tree: build kgfs from a copy of the checkout,
# install it (not editable) into a fresh venv in a temporary folder, and from another, empty
# folder run `kgfs datasets list` and `kgfs run` on the bundled data (datasets/ travels inside the
# wheel as kg/_datasets; there must be no top-level `datasets` package, which would shadow
# HuggingFace's). Usage: .ci/check-wheel.sh   (PYTHON picks the interpreter; pip's cache is used)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null || PYTHON=python
fail() { echo "check-wheel: $*" >&2; exit 1; }

WORK="$(mktemp -d)"
trap 'KGFS_HOME="$WORK/run/.kgfs" "$WORK/venv/bin/kgfs" server stop >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

# a copy of the tracked and new files, so that the build leaves nothing (build/, *.egg-info) in the checkout
mkdir "$WORK/src"
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$ROOT" ls-files -z --cached --others --exclude-standard \
        | (cd "$ROOT" && xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) \
        | tar -C "$ROOT" --null -T - -cf - | tar -C "$WORK/src" -xf -
else
    tar -C "$ROOT" --exclude=.git --exclude=.kgfs --exclude=build --exclude='*.egg-info' -cf - . | tar -C "$WORK/src" -xf -
fi

echo "check-wheel: building and installing into $WORK/venv"
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install --disable-pip-version-check -q "$WORK/src" </dev/null

SITE="$("$WORK/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
[[ ! -e "$SITE/datasets" ]] || fail "the wheel installed a top-level 'datasets' ($SITE/datasets)"
[[ -f "$SITE/kg/_datasets/manifest.toml" ]] || fail "kg/_datasets/manifest.toml is not in the installed package"
[[ -d "$SITE/kg/_datasets/bundled" ]] || fail "kg/_datasets/bundled is not in the installed package"

mkdir "$WORK/run"
cd "$WORK/run"
# nothing may point back at the checkout
unset KGFS_DATASETS_DIR KGFS_HOME PYTHONPATH PREFECT_HOME PREFECT_API_URL
export KGFS_OFFLINE=1

"$WORK/venv/bin/kgfs" datasets list </dev/null > datasets.txt
grep -q "bundled/DM-BP" datasets.txt || { cat datasets.txt >&2; fail "kgfs datasets list does not show bundled/DM-BP"; }

"$WORK/venv/bin/kgfs" run --out o </dev/null
for f in table.arff table.csv hierarchy.csv selected_features.csv evaluation.csv summary.csv run.json; do
    [[ -s "o/$f" ]] || fail "kgfs run did not write $f"
done
"$WORK/venv/bin/python" -c "import kg.datasets as d, sys; sys.exit(not str(d.datasets_dir()).startswith('$SITE'))" \
    || fail "the installed kg reads its datasets from outside the installed package"
echo "check-wheel: ok (kgfs $("$WORK/venv/bin/python" -c 'from importlib.metadata import version; print(version("kgfs"))') from a wheel)"
