#!/bin/sh
# Install Debian's Virtuoso 7 (what DBpedia runs) for the integration tests in tests/kg/test_virtuoso.py.
# The tests start their own virtuoso-t with a private INI bound to 127.0.0.1; nothing is started here
# (the package's own service is stopped if the package's scripts started one).
set -eu
if command -v virtuoso-t >/dev/null 2>&1 && { command -v isql-vt >/dev/null 2>&1 || command -v isql >/dev/null 2>&1; }; then
    echo "virtuoso-opensource already installed: $(virtuoso-t -? 2>&1 | head -n 1 || true)"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends virtuoso-opensource
# the package may start a system instance on 1111/8890; the tests do not use it
if command -v service >/dev/null 2>&1; then $SUDO service virtuoso-opensource-7 stop >/dev/null 2>&1 || true; fi
command -v virtuoso-t
