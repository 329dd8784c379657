#!/bin/sh
# Install Debian's WEKA 3.6 (with a Java runtime) for the integration tests in
# tests/kg/formats/test_weka.py, which run WEKA on the ARFF files kgfs writes.
set -eu
if command -v java >/dev/null 2>&1 && [ -f /usr/share/java/weka.jar ]; then
    echo "weka already installed: /usr/share/java/weka.jar"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends weka
test -f /usr/share/java/weka.jar
command -v java
