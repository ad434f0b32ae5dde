#!/usr/bin/env bash
# Creates the Python virtual environment the Spark route and its test use, with a pinned
# PySpark, under target/spark-venv (or $PUZZLEBENCH_SPARK_VENV). Idempotent: a second run
# with the environment in place does nothing. Needs python3 (with venv) and, to run Spark,
# Java 17 or 21.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYSPARK_VERSION="$(tr -d '[:space:]' < scripts/spark/PYSPARK_VERSION)"
venv="${PUZZLEBENCH_SPARK_VENV:-$(pwd)/target/spark-venv}"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import pyspark, sys; sys.exit(pyspark.__version__ != '$PYSPARK_VERSION')" 2>/dev/null; then
    echo "PySpark $PYSPARK_VERSION is ready in $venv"
    exit 0
fi
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pyspark==$PYSPARK_VERSION"
# The build script looks for the environment to decide whether the Spark test can run.
touch build.rs
echo "PySpark $PYSPARK_VERSION installed in $venv"
