#!/bin/sh
# Installs the Debian packages named as arguments that are not installed yet.
# Prints what it installs; when not root, prints the apt-get line to run and fails.
set -eu
missing=""
for pkg in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $pkg"
  fi
done
[ -z "$missing" ] && exit 0
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
