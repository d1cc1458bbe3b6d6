#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Run the test suites (meson test). Extra arguments go to meson test, e.g.
# `devtools/test.sh --suite fast`. Run devtools/setup.sh first.
set -euo pipefail

cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || { echo "test: run devtools/setup.sh first"; exit 1; }
meson test -C build --print-errorlogs "$@"
