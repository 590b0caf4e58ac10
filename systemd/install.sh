#!/usr/bin/env bash
# Installs nodeatlas as a systemd service: the jar, the unit, the env file and a sample config.
#   sudo systemd/install.sh [path/to/nodeatlas.jar]
# Re-running it upgrades the jar and unit and keeps the env file and config.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
jar="${1:-$here/../cli/target/nodeatlas.jar}"
prefix="${DESTDIR:-}"

[[ -f "$jar" ]] || { echo "install.sh: $jar not found; build it with ./mvnw -pl cli -am package" >&2; exit 2; }
command -v java >/dev/null || { echo "install.sh: java (17 or newer) is not installed" >&2; exit 2; }

install -D -m 0644 "$jar" "$prefix/usr/lib/nodeatlas/nodeatlas.jar"
install -D -m 0644 "$here/nodeatlas.service" "$prefix/etc/systemd/system/nodeatlas.service"
[[ -e "$prefix/etc/default/nodeatlas" ]] || install -D -m 0644 "$here/nodeatlas.env" "$prefix/etc/default/nodeatlas"
[[ -e "$prefix/etc/nodeatlas/config.yaml" ]] || install -D -m 0644 "$here/config.yaml" "$prefix/etc/nodeatlas/config.yaml"

if [[ -z "$prefix" ]] && command -v systemctl >/dev/null; then
  systemctl daemon-reload
  systemctl enable --now nodeatlas.service
  systemctl --no-pager status nodeatlas.service || true
fi
