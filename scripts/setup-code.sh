#!/usr/bin/env bash
# The environment code rewards expect (docs/code.md, "The environment tasks expect"), from Debian packages, as root:
#   bubblewrap, python3, util-linux (prlimit, setpriv)   the sandbox and its Python judge
#   python3-sortedcontainers                             LeetCode's judge provides it (SortedList, SortedDict)
#   python3-numpy                                        TACO / APPS / Codeforces solutions import it
# Everything else LeetCode and the deepcoder / TACO / Codeforces sets import is the standard library. A task set
# that needs more: list its modules in the code component's `modules:` (checked by `rewardkit check`), install
# them here, or name a venv that has them in `python:`. `rewardkit check <spec> --rollouts <file>` lists the
# modules a task set imports that the sandbox's Python lacks.
#
#   npm run setup:code             (or: sudo scripts/setup-code.sh)
#   scripts/setup-code.sh --print  the package list, one a line (for a Dockerfile or another package manager)
set -euo pipefail
PACKAGES=(bubblewrap python3 util-linux python3-sortedcontainers python3-numpy)
if [ "${1:-}" = "--print" ]; then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup:code: all of ${PACKAGES[*]} are installed"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup:code: no apt-get here; install the equivalents of: ${missing[*]}" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "setup:code: needs root to install ${missing[*]} (run: sudo $0)" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup:code: installed ${missing[*]}"
