#!/usr/bin/env bash
# Black-box campaign against the real servers (Apache httpd, nginx, lighttpd):
# one `dualfuzz fuzz --keep-going` run per server, rendered into the section
# "Real servers (black box)" of docs/EVALUATION.md. The work is done by
# bench/eval_realservers.py (options: --seconds N --connections 1,2
# --servers apache2,nginx,lighttpd --dualfuzz PATH --reuse; see its --help).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 bench/eval_realservers.py "$@"
