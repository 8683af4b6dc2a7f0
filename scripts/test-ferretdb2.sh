#!/usr/bin/env bash
# The test suite on FerretDB 2 + DocumentDB (PostgreSQL), the production-class server beside the
# embedded FerretDB 1.24 the plain `pnpm test` uses (docs/operations.md "Test servers").
# Expects a built tree (`pnpm build`); extra arguments go to vitest (files, -t ...).
#
# The server, first found:
#   1. a kit: a directory holding start.sh (`start.sh start DIR` prints MONGODB_URI=... last,
#      `start.sh stop DIR` stops it), from SERVICE_FERRETDB2_KIT, else ../shared/ferretdb2 beside
#      the repository when that exists. Its start.sh needs root (apt, and PostgreSQL runs as
#      'postgres'); without root it is run through `sudo -n` when that works.
#   2. FerretDB's Docker images, started by the test setup (SERVICE_TEST_DATABASE=ferretdb2),
#      when a Docker engine is reachable.
#   3. none: says why in one line and exits 1, or 0 with --skip-if-unavailable (CI).
set -euo pipefail
kit=${SERVICE_FERRETDB2_KIT:-}
if [ -n "$kit" ] && [ -d "$kit" ]; then kit=$(cd "$kit" && pwd); fi
cd "$(dirname "$0")/.."

skip_if_unavailable=false
if [ "${1:-}" = "--skip-if-unavailable" ]; then skip_if_unavailable=true; shift; fi

unavailable() {
  echo "ferretdb2: the FerretDB 2 pass was skipped: $1"
  if $skip_if_unavailable; then exit 0; fi
  exit 1
}

if [ -z "$kit" ] && [ -f ../shared/ferretdb2/start.sh ]; then kit=$(cd ../shared/ferretdb2 && pwd); fi
if [ -n "$kit" ] && [ ! -f "$kit/start.sh" ]; then
  echo "ferretdb2: SERVICE_FERRETDB2_KIT=$kit holds no start.sh" >&2
  exit 1
fi

as_root=()
kit_unusable=""
if [ -n "$kit" ] && [ "$(id -u)" != 0 ]; then
  if sudo -n true 2>/dev/null; then as_root=(sudo -n); else kit_unusable="the kit at $kit needs root (it apt-installs PostgreSQL and runs it as 'postgres'), and this is $(id -un) without password-less sudo"; fi
fi

docker_reachable() {
  [ -n "${DOCKER_HOST:-}" ] || [ -S /var/run/docker.sock ] || return 1
  if command -v docker >/dev/null 2>&1; then docker info >/dev/null 2>&1; fi
}

if [ -n "$kit" ] && [ -z "$kit_unusable" ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/service-ferretdb2-XXXXXX")
  chmod 755 "$dir" # PostgreSQL runs as 'postgres' and must reach its data directory inside
  trap '"${as_root[@]}" bash "$kit/start.sh" stop "$dir" >/dev/null 2>&1 || true; "${as_root[@]}" rm -rf "$dir"' EXIT
  echo "ferretdb2: starting FerretDB 2 from the kit at $kit in $dir"
  started=$("${as_root[@]}" bash "$kit/start.sh" start "$dir")
  uri=$(printf '%s\n' "$started" | sed -n 's/^MONGODB_URI=//p' | tail -1)
  [ -n "$uri" ] || { echo "ferretdb2: the kit's start.sh printed no MONGODB_URI line" >&2; exit 1; }
  echo "ferretdb2: tests on $uri"
  MONGODB_URI=$uri pnpm exec vitest run "$@"
elif docker_reachable; then
  [ -z "$kit_unusable" ] || echo "ferretdb2: $kit_unusable; using Docker instead"
  echo "ferretdb2: tests on FerretDB 2 from FerretDB's Docker images"
  env -u MONGODB_URI SERVICE_TEST_DATABASE=ferretdb2 pnpm exec vitest run "$@"
elif [ -n "$kit_unusable" ]; then
  unavailable "$kit_unusable, and no Docker engine answers"
else
  unavailable "no kit (set SERVICE_FERRETDB2_KIT to a directory holding start.sh) and no Docker engine answers"
fi
