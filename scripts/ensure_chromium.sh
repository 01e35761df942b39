#!/usr/bin/env bash
# Debian's Chromium for the browser tests (frontend/e2e, `make bench`'s web figures): installed with apt when
# /usr/bin/chromium is missing and we run as root; otherwise a message says what to do (the app runs without it).
set -euo pipefail
CHROMIUM=/usr/bin/chromium
[ -x "$CHROMIUM" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "make setup: $CHROMIUM is missing; the browser tests (npm run test:e2e) need it." >&2
    echo "            Install it with: sudo apt-get install -y chromium" >&2
    exit 0
fi
"$(dirname "$0")/apt_install.sh" chromium
"$CHROMIUM" --version
