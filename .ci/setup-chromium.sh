#!/bin/sh
# Install Debian's Chromium (headless) and the Playwright Python package for tests/flows/test_browser.py, which
# drives the Prefect UI of a local kgfs server. Playwright is pointed at /usr/bin/chromium: it never downloads a
# browser of its own (`playwright install` is not run). Nothing is started here.
set -eu
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if command -v chromium >/dev/null 2>&1; then
    echo "chromium already installed: $(chromium --version 2>/dev/null || true)"
else
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends chromium chromium-driver
fi
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python
if ! "$PYTHON" -c "import playwright.sync_api" >/dev/null 2>&1; then
    "$PYTHON" -m pip install -q playwright </dev/null
fi
command -v chromium
