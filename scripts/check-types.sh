#!/usr/bin/env bash
# The JavaScript client's types (Web/scanbridge.d.mts), checked with Debian's tsc
# (node-typescript; scripts/deps.sh test installs it). Fails when:
#   - its method and notification maps, their params and results, and its shapes do not have
#     the members contract/openrpc.json gives them (OpenRPCDocumentTests holds that to the
#     daemon), bar the methods the client cannot use (Tests/ClientTypes/contract.mjs);
#   - scanbridge.mjs disagrees with them, checked as TypeScript checks JavaScript, strictly;
#   - the example app (examples/typescript) does not compile strictly against them, or
#     Tests/ClientTypes/calls.ts finds them taking a call they must refuse;
#   - the package as published (Web/package.json's `files`) does not give those types to an
#     app that imports it by its name, as Node resolves it (`exports`).
set -euo pipefail
cd "$(dirname "$0")/.."
tsc=${TSC:-tsc}
if ! command -v "$tsc" >/dev/null; then
    echo "check-types: no $tsc here; scripts/deps.sh test installs Debian's node-typescript" >&2
    exit 1
fi

# The compiler's own module, beside the tsc found: the contract check reads the types with it.
typescript=$(dirname "$(dirname "$(readlink -f "$(command -v "$tsc")")")")

echo "== the types name what contract/openrpc.json describes"
node Tests/ClientTypes/contract.mjs "$typescript"

echo "== Web/scanbridge.mjs against its types"
"$tsc" --allowJs --checkJs --strict --noEmit --target es2022 --module node16 --lib es2022,dom Web/scanbridge.mjs

echo "== examples/typescript"
"$tsc" -p examples/typescript

echo "== Tests/ClientTypes"
"$tsc" -p Tests/ClientTypes

echo "== the package as published, imported by its name"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
package="$scratch/node_modules/$(node -p 'require("./Web/package.json").name')"
mkdir -p "$package"
cp Web/package.json "$package/"
node -p 'require("./Web/package.json").files.join("\n")' | while read -r file; do cp "Web/$file" "$package/"; done
echo '{"type": "module"}' >"$scratch/package.json"
cp examples/typescript/till.ts "$scratch/"
cat >"$scratch/tsconfig.json" <<JSON
{
  "extends": "$PWD/examples/typescript/tsconfig.json",
  "compilerOptions": { "module": "node16", "moduleResolution": "node16", "paths": {} },
  "files": ["till.ts"]
}
JSON
"$tsc" -p "$scratch"
echo "check-types: ok"
