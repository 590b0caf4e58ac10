#!/usr/bin/env bash
# Installs nodeatlas as a systemd service: the jar, the unit, the env file, a sample config, and the
# OCI hook that enforces CPU and hugepage shares at /usr/local/libexec/nodeatlas/cpuset-hook (the
# default of `run --hook-path`: container runtimes run hooks on the host, so it must lie there).
#   sudo systemd/install.sh [path/to/nodeatlas.jar]
# Re-running it upgrades the jar and unit and keeps the env file and config.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
jar="${1:-$here/../cli/target/nodeatlas.jar}"
prefix="${DESTDIR:-}"

[[ -f "$jar" ]] || { echo "install.sh: $jar not found; build it with ./mvnw -pl cli -am package" >&2; exit 2; }

# The unit runs this java (ExecStart); the jar is Java 17 bytecode. JAVA=/path/to/bin/java installs the
# unit with another one.
java="${JAVA:-/usr/bin/java}"
need=17
[[ -x "$java" ]] || { echo "install.sh: $java not found: install Java $need or newer (Debian/Ubuntu: apt-get install openjdk-$need-jre-headless), or set JAVA=/path/to/bin/java" >&2; exit 2; }
spec=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = *//p' | head -1)
major=${spec#1.}
major=${major%%.*}
if ! [[ $major =~ ^[0-9]+$ ]] || (( major < need )); then
  echo "install.sh: $java is Java ${spec:-of an unknown version}; nodeatlas needs Java $need or newer (Debian/Ubuntu: apt-get install openjdk-$need-jre-headless, or set JAVA=/path/to/bin/java)" >&2
  exit 2
fi

hook="${NODEATLAS_HOOK:-$here/../discovery-cpu-numa/target/hooks/nodeatlas-cpuset-hook}"
if [[ ! -x "$hook" ]]; then
  # Not built by Maven yet: build it from its one C file.
  command -v gcc >/dev/null || { echo "install.sh: $hook not found and gcc is not installed" >&2; exit 2; }
  hook="$(mktemp -d)/nodeatlas-cpuset-hook"
  gcc -std=c11 -O2 -Wall -Wextra -static -o "$hook" "$here/../discovery-cpu-numa/src/main/c/nodeatlas-cpuset-hook.c" 2>/dev/null \
    || gcc -std=c11 -O2 -Wall -Wextra -o "$hook" "$here/../discovery-cpu-numa/src/main/c/nodeatlas-cpuset-hook.c"
fi

install -D -m 0644 "$jar" "$prefix/usr/lib/nodeatlas/nodeatlas.jar"
# install(1) replaces the file rather than writing into it, so a runtime running the old hook is not disturbed.
install -D -m 0755 "$hook" "$prefix/usr/local/libexec/nodeatlas/cpuset-hook"
install -D -m 0644 "$here/nodeatlas.service" "$prefix/etc/systemd/system/nodeatlas.service"
if [[ $java != /usr/bin/java ]]; then
  sed -i "s#^ExecStart=/usr/bin/java #ExecStart=$java #" "$prefix/etc/systemd/system/nodeatlas.service"
fi
[[ -e "$prefix/etc/default/nodeatlas" ]] || install -D -m 0644 "$here/nodeatlas.env" "$prefix/etc/default/nodeatlas"
[[ -e "$prefix/etc/nodeatlas/config.yaml" ]] || install -D -m 0644 "$here/config.yaml" "$prefix/etc/nodeatlas/config.yaml"

if [[ -z "$prefix" ]] && command -v systemctl >/dev/null; then
  systemctl daemon-reload
  systemctl enable --now nodeatlas.service
  systemctl --no-pager status nodeatlas.service || true
fi
