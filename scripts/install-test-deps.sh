#!/usr/bin/env bash
# What the test suite needs on a fresh Debian machine whose Node (20 or later) runs pnpm; the
# project's own Node 24 comes with `pnpm install`. Here: pnpm 10, Debian's Chromium (browser
# tests), WordPress with PHP and MariaDB (CMS-B tests), PHPUnit and PHP_CodeSniffer (the Drupal
# modules' tests and style), PHP's SQLite, GD, XML, intl and cURL extensions (a real Drupal for the CMS-A
# tests), Python's venv (the Python A2A SDK interop test) and nginx (several instances behind a proxy). FerretDB, the test
# database, is built on first use by the test setup through the Go module proxy
# (`pnpm db:install` does it ahead of time). Jaeger v2, the telemetry tests' trace receiver, is
# built here from the Go module proxy when Go is present (about 5 minutes cold on 2 cores).
set -euo pipefail

if ! command -v pnpm >/dev/null 2>&1 || ! pnpm --version 2>/dev/null | grep -q '^10\.'; then
  echo "installing pnpm 10"
  npm install -g pnpm@10
fi

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
packages=""
if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ]; then packages="chromium fonts-dejavu-core"; fi
# CMS-B tests run a real WordPress: Debian's package, PHP's CLI server and a private MariaDB.
if [ ! -f /usr/share/wordpress/wp-load.php ] || [ ! -x /usr/bin/php ] || [ ! -x /usr/sbin/mariadbd ]; then packages="$packages wordpress php-cli php-mysql mariadb-server"; fi
# The real Drupal the CMS-A tests install (from SERVICE_DRUPAL_ARCHIVE) runs on SQLite and needs these.
if ! php -m 2>/dev/null | grep -qx pdo_sqlite || ! php -m | grep -qx gd || ! php -m | grep -qx intl || ! php -m | grep -qx curl || ! php -m | grep -qx mbstring || ! php -m | grep -qx dom; then
  packages="$packages php-cli php-sqlite3 php-gd php-xml php-mbstring php-curl php-intl"
fi
# The Drupal modules' PHP tests and style: PHPUnit and PHP_CodeSniffer from Debian.
if ! command -v phpunit >/dev/null 2>&1 || ! command -v phpcs >/dev/null 2>&1; then
  packages="$packages phpunit php-codesniffer"
fi
# The tools module's Kernel tests run with Drupal core's own test base, which needs these beside phpunit.
if [ ! -d /usr/share/php/Symfony/Bridge/PhpUnit ] || [ ! -d /usr/share/php/org/bovigo/vfs ] || [ ! -d /usr/share/php/Prophecy/PhpUnit ]; then
  packages="$packages php-symfony-phpunit-bridge php-mikey179-vfsstream php-phpspec-prophecy-phpunit"
fi
# The several-instances test and bench put two or three web processes behind Debian's nginx.
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then packages="$packages nginx"; fi
# The Python A2A SDK interop test builds a venv (python3 -m venv) and installs a2a-sdk from PyPI.
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then packages="$packages python3 python3-venv"; fi
if [ -n "$packages" ]; then
  echo "installing Debian packages for the tests:$packages"
  # Wait up to 5 minutes for another apt (unattended-upgrades on a fresh machine) instead of failing at once.
  $sudo apt-get -o DPkg::Lock::Timeout=300 update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=300 install -y -qq $packages >/dev/null
fi

# Jaeger v2 (the telemetry tests' OTLP receiver) into the Go bin dir, once; plain Node, no packages
# needed yet. Without Go the tests build nothing and are skipped, saying so.
if command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ]; then
  node "$(dirname "$0")/install-jaeger.mjs" || echo "Jaeger could not be built: the telemetry receiver tests will be skipped"
else
  echo "no Go here: the telemetry receiver tests (Jaeger) will be skipped"
fi
