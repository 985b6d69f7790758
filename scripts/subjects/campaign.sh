#!/usr/bin/env bash
# Campaign against the real servers (Apache httpd, nginx, lighttpd): per
# server, `dualfuzz fuzz --keep-going` runs and, with --libfuzzer, the
# external-server fuzz target under libFuzzer; rendered into the section
# "Real servers (black box)" of docs/evaluation-journal.md. The work is done by
# bench/eval_realservers.py (options: --seconds N --connections 1,2
# --servers apache2,nginx,lighttpd --dualfuzz PATH --libfuzzer FUZZER
# --libfuzzer-seconds N --libfuzzer-seeds K --reuse; see its --help).
#   scripts/subjects/campaign.sh --connections 2,1 \
#     --libfuzzer build-lf/tests/fuzz/http_inprocess_fuzzer
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 bench/eval_realservers.py "$@"
