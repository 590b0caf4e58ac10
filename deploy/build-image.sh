#!/usr/bin/env bash
# Builds the agent image as an OCI archive from parts Debian's archive and this checkout give, with no
# registry and no container engine:
#   1. base:    libc, libstdc++, zlib and a static busybox (sh, cp, chmod, mv for the hook's init step),
#               extracted from Debian's archive by mmdebstrap, of this host's release;
#   2. runtime: a Java runtime jlinked from this host's JDK (its jmods) with the modules the jar needs;
#   3. app:     cli/target/nodeatlas.jar and the OCI hook (discovery-cpu-numa/src/main/c/nodeatlas-cpuset-hook.c) linked statically,
#               as the DaemonSet's init container copies it to the host, where runtimes run it.
# The tag is the jar's Implementation-Version. The entry point passes the JVM flags of
# systemd/nodeatlas.env (less -XX:MaxRAM: in a container the JVM sizes its heap from the cgroup's limit).
# Layer entries are sorted, owned by root and dated SOURCE_DATE_EPOCH (default: the last commit's time).
#
#   deploy/build-image.sh [OUT.oci.tar]     (default: target/nodeatlas-image-<version>.oci.tar)
#   podman load -i OUT.oci.tar              (or skopeo copy oci-archive:OUT.oci.tar docker://REGISTRY/...)
#
# Needs: the jar (./mvnw -B -pl cli -am package), a JDK 17+ with jmods (Debian: openjdk-17-jdk-headless),
# mmdebstrap, gcc with a static libc (libc6-dev), jq, and Debian's archive (NODEATLAS_DEBIAN_MIRROR).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
jar=${NODEATLAS_JAR:-$repo/cli/target/nodeatlas.jar}
name=${NODEATLAS_IMAGE_NAME:-ghcr.io/nodeatlas/nodeatlas}
mirror=${NODEATLAS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}

die() { echo "build-image.sh: $*" >&2; exit 2; }
[[ -f $jar ]] || die "$jar not found; build it with ./mvnw -B -pl cli -am package"
for tool in mmdebstrap gcc strip jq zip sha256sum gzip tar; do
  command -v "$tool" >/dev/null || die "$tool is not installed (Debian: apt-get install mmdebstrap gcc libc6-dev jq zip)"
done
[[ -x $java_home/bin/jlink && -d $java_home/jmods ]] \
  || die "no jlink and jmods in $java_home (Debian: apt-get install openjdk-17-jdk-headless; or set JAVA_HOME)"
# The runtime's libraries are linked against this host's libc: the base comes from the same release.
# shellcheck disable=SC1091
suite=${NODEATLAS_DEBIAN_SUITE:-$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")}
[[ -n $suite ]] || die "cannot tell this host's Debian release; set NODEATLAS_DEBIAN_SUITE (e.g. bookworm)"

# Debian's architecture names are the OCI ones for amd64, arm64, ppc64le and s390x.
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
work=$(mktemp -d "${TMPDIR:-/tmp}/nodeatlas-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

# --- version: the jar's own ---------------------------------------------------------------------------
(cd "$work" && "$java_home/bin/jar" xf "$jar" META-INF/MANIFEST.MF)
version=$(sed -n 's/^Implementation-Version: *\([^[:space:]]*\).*/\1/p' "$work/META-INF/MANIFEST.MF")
[[ $version =~ ^[0-9A-Za-z][0-9A-Za-z._-]{0,127}$ ]] || die "the jar has no usable Implementation-Version: '$version'"
out=${1:-$repo/target/nodeatlas-image-$version.oci.tar}
mkdir -p "$(dirname "$out")"

# Deterministic layer tars: sorted, one owner, one time, no atime/ctime in PAX headers.
layer_tar() { # DIR OUT.tar
  tar -C "$1" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -cf "$2" .
}

# --- 1. base ------------------------------------------------------------------------------------------
# "extract": the packages' files only, no maintainer scripts and no dpkg database; /dev is the runtime's.
# Of /usr/share only each package's copyright file stays (the licences the image redistributes); glibc's
# tools and charset modules go. busybox gives sh, cp, chmod and mv to the DaemonSet's init step.
cat >"$work/trim-base.sh" <<'HOOK'
set -e
cd "$1"
find usr/share -mindepth 1 -maxdepth 1 ! -name doc -exec rm -rf {} +
find usr/share/doc \( -type f ! -name copyright \) -o -type l | xargs -r rm -f
rm -rf sbin usr/sbin usr/libexec usr/lib/*-linux-gnu*/gconv usr/lib/*-linux-gnu*/audit
rm -rf usr/bin
for applet in sh cp chmod mv cat ls; do ln -sf busybox "bin/$applet"; done
mkdir -p tmp etc
chmod 1777 tmp
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >etc/passwd
printf 'root:x:0:\nnogroup:x:65534:\n' >etc/group
HOOK
echo "==> base: Debian $suite (libc6 libgcc-s1 libstdc++6 zlib1g busybox-static) from $mirror"
mmdebstrap --quiet --variant=extract --skip=output/dev \
  --include=libc6,libgcc-s1,libstdc++6,zlib1g,busybox-static \
  --extract-hook="sh '$work/trim-base.sh' \"\$1\"" \
  "$suite" "$work/base.tar" "$mirror" </dev/null

# --- 2. runtime ---------------------------------------------------------------------------------------
# The modules jdeps finds in the jar, and jdk.crypto.ec (TLS to an API server with an EC certificate or
# ECDHE, which no class names). java.desktop is there for java.beans (jackson, snakeyaml): its native
# libraries (AWT, fonts, sound, images, which need X11 and more) are left out. The JDK's default CDS
# archive is regenerated for these modules; the one for heaps over 32 GiB is not kept. The class image
# is not compressed by jlink: gzip does better on the layer (16 against 22 MB for the modules) and
# classes load without inflating. Native libraries lose their symbol tables (libjvm: 24 to 20 MB).
echo "==> runtime: jlink from $java_home"
modules=$("$java_home/bin/jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps "$jar" | tail -1)
[[ $modules =~ ^[a-z.,]+$ ]] || die "jdeps gave no module list: $modules"
mkdir -p "$work/runtime/opt/nodeatlas"
"$java_home/bin/jlink" --add-modules "$modules,jdk.crypto.ec" --strip-debug --no-header-files --no-man-pages \
  --generate-cds-archive \
  --exclude-files="$(printf '**/%s.so,' libawt libawt_headless libawt_xawt libfontmanager libjavajpeg libjawt \
    libjsound liblcms libmlib_image libsplashscreen)" \
  --output "$work/runtime/opt/nodeatlas/jre" | { grep -v '^Created CDS archive' || true; }
[[ -x $work/runtime/opt/nodeatlas/jre/bin/java ]] || die "jlink failed"
rm -f "$work/runtime/opt/nodeatlas/jre/lib/server/classes_nocoops.jsa"
find "$work/runtime/opt/nodeatlas/jre" -name '*.so' -exec strip --strip-unneeded {} +

# --- 3. app -------------------------------------------------------------------------------------------
echo "==> app: $jar ($version) and the static OCI hook"
mkdir -p "$work/app/opt/nodeatlas/hooks"
app_jar=$work/app/opt/nodeatlas/nodeatlas.jar
install -m 0644 "$jar" "$app_jar"
# The jar carries native libraries for every platform JNA and Netty support (20 MiB); the image keeps
# those of its own architecture (the jar 45 -> 38 MiB).
case $arch in
  amd64) keep='(/linux-x86-64/|_linux_x86_64\.so$|_epoll_x86_64\.so$)' ;;
  arm64) keep='(/linux-aarch64/|_linux_aarch_64\.so$|_epoll_aarch_64\.so$)' ;;
  *) keep='' ;;
esac
if [[ -n $keep ]]; then
  "$java_home/bin/jar" tf "$app_jar" | grep -E '\.(so|dll|jnilib|dylib|a)$' | grep -Ev "$keep" >"$work/foreign-natives" || true
  [[ ! -s $work/foreign-natives ]] || zip -q -d "$app_jar" -@ <"$work/foreign-natives" >/dev/null
  "$java_home/bin/jar" tf "$app_jar" | grep -Eq "$keep" || die "the jar has no native library for $arch"
fi
gcc -std=c11 -O2 -Wall -Wextra -Werror -D_FORTIFY_SOURCE=2 -static -s \
  -o "$work/app/opt/nodeatlas/hooks/cpuset-hook" discovery-cpu-numa/src/main/c/nodeatlas-cpuset-hook.c \
  || die "cannot link the hook statically (Debian: apt-get install libc6-dev)"

# --- the OCI image layout, archived ---------------------------------------------------------------------
eval "$(grep '^NODEATLAS_JAVA_OPTS=' systemd/nodeatlas.env)"
read -r -a jvm_flags <<<"$NODEATLAS_JAVA_OPTS"
flags=()
for f in "${jvm_flags[@]}"; do [[ $f == -XX:MaxRAM=* ]] || flags+=("$f"); done

oci=$work/oci
mkdir -p "$oci/blobs/sha256"
blob() { # FILE MEDIATYPE -> a descriptor; the file moves into the layout under its digest
  local digest size
  digest=$(sha256sum "$1" | cut -d' ' -f1)
  size=$(stat -c %s "$1")
  mv "$1" "$oci/blobs/sha256/$digest"
  jq -cn --arg m "$2" --arg d "sha256:$digest" --argjson s "$size" '{mediaType: $m, digest: $d, size: $s}'
}
layers=() diff_ids=() history=()
for part in base runtime app; do
  [[ $part == base ]] || layer_tar "$work/$part" "$work/$part.tar"
  diff_ids+=("sha256:$(sha256sum "$work/$part.tar" | cut -d' ' -f1)")
  printf '  %-8s %6d KiB uncompressed\n' "$part" $(( $(stat -c %s "$work/$part.tar") / 1024 ))
  gzip -n -9 "$work/$part.tar"
  layers+=("$(blob "$work/$part.tar.gz" application/vnd.oci.image.layer.v1.tar+gzip)")
done
created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
jq -n --arg created "$created" --arg version "$version" --arg suite "$suite" --arg flags "${flags[*]}" --arg arch "$arch" \
  '{
    created: $created, architecture: $arch, os: "linux",
    config: {
      Entrypoint: (["/opt/nodeatlas/jre/bin/java"] + ($flags | split(" ")) + ["-jar", "/opt/nodeatlas/nodeatlas.jar"]),
      Cmd: ["run"],
      Env: ["PATH=/opt/nodeatlas/jre/bin:/usr/bin:/bin"],
      WorkingDir: "/",
      Labels: {
        "org.opencontainers.image.title": "nodeatlas",
        "org.opencontainers.image.version": $version,
        "org.opencontainers.image.licenses": "Apache-2.0",
        "org.opencontainers.image.base.name": ("debian:" + $suite + " (mmdebstrap, extract)")
      }
    },
    rootfs: {type: "layers", diff_ids: []},
    history: [
      {created: $created, created_by: ("mmdebstrap --variant=extract " + $suite + ": libc6 libgcc-s1 libstdc++6 zlib1g busybox-static")},
      {created: $created, created_by: "jlink (deploy/build-image.sh)"},
      {created: $created, created_by: ("nodeatlas.jar " + $version + " and the static cpuset hook")}
    ]
  }' >"$work/config.json"
jq --args '.rootfs.diff_ids = $ARGS.positional' "${diff_ids[@]}" <"$work/config.json" >"$work/config.json.new"
mv "$work/config.json.new" "$work/config.json"
config=$(blob "$work/config.json" application/vnd.oci.image.config.v1+json)
printf '%s\n' "${layers[@]}" | jq -s --argjson config "$config" \
  '{schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config: $config, layers: .}' \
  >"$work/manifest.json"
manifest=$(blob "$work/manifest.json" application/vnd.oci.image.manifest.v1+json)
jq -n --argjson m "$manifest" --arg ref "$name:$version" \
  '{schemaVersion: 2, manifests: [$m + {annotations: {"org.opencontainers.image.ref.name": $ref}}]}' >"$oci/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$oci/oci-layout"
layer_tar "$oci" "$work/image.tar"
mv "$work/image.tar" "$out"
echo "$name:$version $(jq -r .digest <<<"$manifest") $(( $(stat -c %s "$out") / 1024 )) KiB: $out"
