#!/usr/bin/env bash
# What the test suite needs beyond Node 20 on a fresh Debian machine: pnpm 10 and Debian's
# Chromium (for the browser tests). FerretDB, the test database, is built on first use by the
# test setup through the Go module proxy (`pnpm db:install` does it ahead of time).
set -euo pipefail

if ! command -v pnpm >/dev/null 2>&1 || ! pnpm --version 2>/dev/null | grep -q '^10\.'; then
  echo "installing pnpm 10"
  npm install -g pnpm@10
fi

if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ]; then
  echo "installing Debian's chromium for the browser tests"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
