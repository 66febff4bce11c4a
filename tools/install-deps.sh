#!/bin/sh
# Installs the Debian packages named as arguments that are not installed yet.
# Prints what it installs; when not root, prints the apt-get line to run and fails.
# With --optional first: packages of optional features (the build goes on without them);
# when not root, names what is missing and succeeds.
set -eu
optional=false
if [ "${1:-}" = "--optional" ]; then
  optional=true
  shift
fi
missing=""
for pkg in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $pkg"
  fi
done
[ -z "$missing" ] && exit 0
if $optional && [ "$(id -u)" -ne 0 ]; then
  echo "axle: optional Debian packages not installed:$missing (a build without their features;"
  echo "axle:   as root: apt-get update && apt-get install -y$missing)"
  exit 0
fi
echo "axle: missing Debian packages:$missing"
if [ "$(id -u)" -ne 0 ]; then
  echo "axle: run as root:  apt-get update && apt-get install -y$missing"
  exit 1
fi
echo "axle: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
