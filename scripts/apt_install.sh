#!/usr/bin/env bash
# apt_install.sh PACKAGE: install one Debian package as root, quietly (used by ensure_chromium.sh and
# ensure_postgres.sh). Stale or empty package lists know no candidate (or an outdated one that is gone from the
# mirror): the lists are updated first where they know none, and once more when the install fails.
set -euo pipefail
package="$1"
export DEBIAN_FRONTEND=noninteractive
if ! apt-cache policy "$package" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    apt-get update -qq
fi
if ! apt-get install -y -qq "$package" >/dev/null; then
    apt-get update -qq
    apt-get install -y -qq "$package" >/dev/null
fi
