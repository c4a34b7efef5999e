#!/usr/bin/env bash
# Regenerates docs/functions.md from Tessera's catalogs and docs/pinot-registry.tsv.
# (docs/pinot-registry.tsv itself comes from tools/pinot_registry.py over a Pinot checkout.)
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATE_FUNCTIONS_DOC=1 cargo test -q -p tessera-engine --test functions_doc functions_doc_is_current
grep -m1 'names supported' docs/functions.md
