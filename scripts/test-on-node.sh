#!/usr/bin/env bash
# Runs the test suite under another Node major version: `scripts/test-on-node.sh 22 [filter ...]`.
# The Node binary and its headers come from the npm registry (`node-<platform>-<arch>@<major>`,
# the platform half of the `node` package that `npx node@<major>` uses). The suite runs in a
# copy of the tree with its own `npm ci`: better-sqlite3 is a native module built for the ABI
# of the Node that installed it, here compiled against that Node's headers. Type checking and
# lint do not depend on the Node version and are left to `npm test` on the machine's Node.
set -euo pipefail
major="${1:?usage: scripts/test-on-node.sh <node major version> [test filter ...]}"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
platform="$(node -p 'process.platform + "-" + process.arch')"
runtime="${TMPDIR:-/tmp}/contract-hub-node${major}-runtime"
node_dir="$runtime/node_modules/node-${platform}"
if [ ! -x "$node_dir/bin/node" ]; then
  npm install --prefix "$runtime" --no-save --no-package-lock --no-audit --no-fund "node-${platform}@${major}" >/dev/null
fi
[ -f "$node_dir/include/node/node.h" ] || { echo "no Node headers in $node_dir" >&2; exit 1; }

# The copy keeps the clone's neighbourhood: the shared conformance data beside it
# (../shared), which the conformance tests read when it is there.
work="${TMPDIR:-/tmp}/contract-hub-node${major}"
copy="$work/main"
rm -rf "$work"
mkdir -p "$copy"
[ -d "$root/../shared" ] && ln -s "$(cd "$root/../shared" && pwd)" "$work/shared"
tar -C "$root" --exclude=./node_modules --exclude=./dist --exclude=./data --exclude=./.test-artifacts \
  --exclude=./.git -cf - . | tar -C "$copy" -xf -
cd "$copy"
export PATH="$node_dir/bin:$PATH"
echo "Node $(node --version) in $copy" >&2
npm ci --no-audit --no-fund --nodedir="$node_dir" >/dev/null
node scripts/run-tests.js "$@"
