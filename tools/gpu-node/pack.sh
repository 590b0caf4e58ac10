#!/usr/bin/env bash
# Packs what a GPU node without a JDK or network needs to run nodeatlas against its real driver: a
# jlink'd Java runtime (stripped, ~37 MB) and nodeatlas.jar without what these checks never load (other
# platforms' native libraries, gRPC, the unused Kubernetes models: ~20 MB), plus the scripts beside this
# one and their two small programs, into DIR (default .gpu-node/ in the repository, which git ignores).
# Then, on the GPU node, from a copy of the repository: DIR/check.sh OUT and DIR/container.sh (README.md).
#   tools/gpu-node/pack.sh [DIR]
# Needs: a JDK 17+ with jlink, gcc, zip; builds the jar first (./mvnw package) when it is missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${1:-$repo/.gpu-node}"
jar="$repo/cli/target/nodeatlas.jar"
[[ -f $jar ]] || (cd "$repo" && ./mvnw -q -B -pl cli -am package -DskipTests -Djazzer.skip=true)
rm -rf "$out" && mkdir -p "$out"

# The modules the jar needs for these commands (jdeps says java.desktop too, for classes they never load).
jlink --add-modules java.base,jdk.unsupported,java.logging,java.naming,java.net.http,java.sql,java.management,jdk.crypto.ec,jdk.zipfs \
  --strip-debug --no-man-pages --no-header-files --compress=2 --output "$out/jre" >/dev/null
strip --strip-unneeded "$out/jre/lib/server/libjvm.so" 2>/dev/null || true

cp "$jar" "$out/nodeatlas.jar"
drop=('META-INF/native/*' 'io/grpc/*' 'com/google/api/*' 'com/google/apps/*' 'io/perfmark/*')
while read -r dir; do
  case $dir in com/sun/jna/linux-x86-64/ | com/sun/jna/internal/ | com/sun/jna/ptr/ | com/sun/jna/win32/) ;;
    com/sun/jna/*-*/ | com/sun/jna/win32*/) drop+=("$dir*") ;;
    io/fabric8/kubernetes/api/model/resource/) ;;
    io/fabric8/kubernetes/api/model/*/) drop+=("$dir*") ;;
  esac
done < <(unzip -Z1 "$jar" | grep -E '^(com/sun/jna/[^/]+|io/fabric8/kubernetes/api/model/[a-z0-9]+)/$')
zip -q -d "$out/nodeatlas.jar" "${drop[@]}" >/dev/null

javac --release 17 -cp "$jar" -d "$out/probe" "$here/HealthProbe.java" "$here/MigProbe.java"
gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$out/gpu-app" "$repo/.ci/e2e/fixtures/gpu-app.c" -ldl
cp "$here/check.sh" "$here/container.sh" "$out/"
echo "packed $(du -sh "$out" | cut -f1) into $out"
