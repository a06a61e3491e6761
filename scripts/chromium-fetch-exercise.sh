#!/usr/bin/env bash
# Exercises `npm test`'s own Chromium fetch (scripts/chromium.ts) for real, on a machine that has a Chromium, without
# touching that machine: in a private mount namespace, /usr, /etc and /var are overlays whose changes land in a
# scratch folder (deleted at the end), /usr/bin/chromium and /usr/lib/chromium are removed there (so dpkg still
# thinks chromium is installed, as on a machine where someone deleted the browser), so are apt's kept .deb files (so
# it downloads them), and Playwright looks for its browsers in an empty folder. Then `tsx scripts/chromium.ts` finds nothing, tries Playwright's download, falls back to
# apt-get as root, and launches what it got. Prints what it did and how long it took.
#
#   sudo scripts/chromium-fetch-exercise.sh              (root: mount namespaces, overlays, apt-get)
#   sudo scripts/chromium-fetch-exercise.sh --purged     the same on a machine that never had it: dpkg purges the
#                                                        packages first (in the overlay), so apt installs, not reinstalls
#
# Not part of `npm test`: it downloads the chromium packages (about 100 MB) from Debian's mirror each time, needs root
# and overlayfs, and leaves the machine as it was only because everything happens in the namespace.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then echo "chromium-fetch-exercise: needs root (mount namespace, overlays, apt-get)" >&2; exit 2; fi

scratch=$(mktemp -d /tmp/sandshell-chromium-exercise-XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# Everything below runs in its own mount namespace; nothing it mounts is seen outside, and it ends with the command.
mode=${1:-deleted}
unshare --mount --propagation private env SCRATCH="$scratch" MODE="$mode" bash -euo pipefail -c '
  for d in usr etc var; do
    mkdir -p "$SCRATCH/$d/upper" "$SCRATCH/$d/work"
    mount -t overlay "overlay-$d" -o "lowerdir=/$d,upperdir=$SCRATCH/$d/upper,workdir=$SCRATCH/$d/work" "/$d"
  done
  if [ "$MODE" = --purged ]; then
    DEBIAN_FRONTEND=noninteractive dpkg --purge --force-depends chromium chromium-common >/dev/null
  fi
  rm -rf /usr/bin/chromium /usr/lib/chromium
  rm -f /var/cache/apt/archives/chromium*.deb   # apt must download them, not take the ones it kept
  mkdir -p "$SCRATCH/playwright-browsers"
  export PLAYWRIGHT_BROWSERS_PATH="$SCRATCH/playwright-browsers"
  echo "chromium-fetch-exercise: in the namespace: /usr/bin/chromium $( [ -e /usr/bin/chromium ] && echo present || echo absent ), dpkg says chromium is $(dpkg-query -W -f="\${db:Status-Status}" chromium 2>/dev/null || echo unknown)"
  start=$(date +%s.%N)
  status=0
  node_modules/.bin/tsx scripts/chromium.ts || status=$?
  end=$(date +%s.%N)
  fetched=$(find "$SCRATCH/var/upper/cache/apt/archives" -name "*.deb" -printf "%f %s bytes\n" 2>/dev/null || true)
  echo "chromium-fetch-exercise: exit $status after $(echo "$end - $start" | bc) s; in the overlay: $(du -sh "$SCRATCH/usr/upper" | cut -f1) under /usr; downloaded by apt: ${fetched:-nothing}"
  exit $status
'
echo "chromium-fetch-exercise: outside the namespace /usr/bin/chromium is $( [ -x /usr/bin/chromium ] && echo still there || echo MISSING )"
