#!/usr/bin/env bash
# Builds Kiln's .deb from a build folder, installs it with apt into a fresh, minimal Debian 12
# root (debootstrap) and runs it there from /usr, with no build tree in reach:
#   packaging/test-package.sh BUILD_DIR [MIRROR]
# Needs root, debootstrap and the Debian mirror (default: the host's, else deb.debian.org).
# Exit status 0 when every step passed, 77 when it cannot run here (not root, no debootstrap).
set -euo pipefail

build=$(cd "${1:?usage: test-package.sh BUILD_DIR [MIRROR]}" && pwd)
# The host's Debian mirror, from either sources format; none found is no error.
host_mirror() {
    { sed -n 's/^URIs: *\(\S*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources
      sed -n 's/^deb \(http\S*debian\) .*/\1/p' /etc/apt/sources.list; } 2>/dev/null | head -n1
    return 0
}
mirror=${2:-$(host_mirror)}
mirror=${mirror:-http://deb.debian.org/debian}

if [ "$(id -u)" -ne 0 ] || ! command -v debootstrap >/dev/null; then
    echo "test-package: needs root and debootstrap (apt-get install debootstrap); skipped" >&2
    exit 77
fi

step() { printf '\n== %s\n' "$*" >&2; }
fail() { echo "test-package: FAILED: $*" >&2; exit 1; }

step "package ($build)"
rm -f "$build"/kiln_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/kiln_*.deb)
dpkg-deb --info "$deb" | sed -n 's/^ \(Depends\|Recommends\|Installed-Size\):/  \1:/p' >&2

root=$(mktemp -d /tmp/kiln-package-root-XXXXXX)
cleanup() {
    umount "$root/proc" 2>/dev/null || true
    umount "$root/dev" 2>/dev/null || true
    rm -rf "$root"
}
trap cleanup EXIT

step "fresh Debian 12 root from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp "$deb" "$root/tmp/"
# No build tree and none of this host's environment inside: only what the package brings.
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 "$@"; }

step "apt-get install ./$(basename "$deb") (no recommends: Depends must suffice)"
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "/tmp/$(basename "$deb")" >/dev/null

step "files in place"
for f in /usr/bin/kiln /usr/bin/kiln-cli /usr/libexec/kiln/kiln-sandbox \
         /usr/share/applications/io.github.kiln.Kiln.desktop \
         /usr/share/metainfo/io.github.kiln.Kiln.metainfo.xml \
         /usr/share/icons/hicolor/scalable/apps/io.github.kiln.Kiln.svg \
         /usr/share/icons/hicolor/48x48/apps/io.github.kiln.Kiln.png \
         /usr/share/man/man1/kiln.1.gz /usr/share/man/man1/kiln-cli.1.gz \
         /usr/share/bash-completion/completions/kiln-cli \
         /usr/share/kiln/tasks/vector_add/task.json /usr/share/doc/kiln/docs/user-guide.md; do
    [ -e "$root$f" ] || fail "$f is missing"
done
[ -d "$root/usr/lib/kiln/plugins" ] || fail "/usr/lib/kiln/plugins is missing"
if [ -e "$build/bin/kiln-cuda-sandbox" ]; then
    [ -e "$root/usr/libexec/kiln/kiln-cuda-sandbox" ] || fail "kiln-cuda-sandbox is missing"
fi

step "kiln-cli doctor"
in_root kiln-cli doctor >&2
in_root kiln-cli doctor --json | grep -q '"cpu":true' || fail "doctor: the CPU backend is not usable"

step "kiln-cli tasks"
tasks=$(in_root kiln-cli tasks --json | grep -o '"name":"[a-z_]*"' | sort -u | wc -l)
[ "$tasks" -eq 6 ] || fail "kiln-cli tasks lists $tasks tasks, not 6"

step "kiln-cli run (a short search on the CPU backend)"
in_root kiln-cli run --task vector_add --backend cpu --budget 4 --seed 1 --db /tmp/w.db --json \
    > "$root/tmp/run.json"
grep -q '"candidates":[1-9]' "$root/tmp/run.json" || fail "the run stored no candidate"

step "kiln --screenshot (offscreen)"
in_root env QT_QPA_PLATFORM=offscreen kiln --db /tmp/w.db --screenshot /tmp/shot.png
[ "$(head -c 4 "$root/tmp/shot.png" | od -An -c | tr -d ' ')" = "211PNG" ] ||
    fail "kiln --screenshot wrote no PNG"

step "bash completion"
words=$(in_root bash -c 'source /usr/share/bash-completion/completions/kiln-cli
    COMP_WORDS=(kiln-cli run --strategy b); COMP_CWORD=3; _kiln_cli; echo "${COMPREPLY[*]}"')
[ "$words" = "best-of-n beam" ] || fail "completion of --strategy b gave '$words'"

echo "test-package: the package installs and runs on a fresh Debian 12" >&2
