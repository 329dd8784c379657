#!/bin/sh
# Regenerate the WEKA-written ARFF fixtures of tests/kg/formats/test_weka.py from genes.csv.
# Needs WEKA 3.6 (Debian: apt-get install weka, which puts weka.jar in /usr/share/java).
#   CSVLoader -N 2-last: every column but the id becomes nominal, values in order of appearance
#                        (so a column whose first value is 1 is declared {1.0,0.0});
#   CSVLoader -N last:   the features stay numeric;
#   NonSparseToSparse:   WEKA's sparse rows (the first nominal value, or 0, is left out).
# Usage: sh make.sh [OUTPUT_DIR]   (default: this folder; WEKA_JAR overrides the jar)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE}
JAR=${WEKA_JAR:-/usr/share/java/weka.jar}
weka() { LC_ALL=C.UTF-8 java -Dfile.encoding=UTF-8 -cp "$JAR" "$@" 2>/dev/null; }
weka weka.core.converters.CSVLoader -S first -N 2-last "$HERE/genes.csv" > "$OUT/nominal_dense.arff"
weka weka.core.converters.CSVLoader -S first -N last "$HERE/genes.csv" > "$OUT/numeric_dense.arff"
for kind in nominal numeric; do
    weka weka.filters.unsupervised.instance.NonSparseToSparse -i "$OUT/${kind}_dense.arff" -o "$OUT/${kind}_sparse.arff"
done
