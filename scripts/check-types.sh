#!/usr/bin/env bash
# The JavaScript client's types (Web/scanbridge.d.mts), checked with Debian's tsc
# (node-typescript; scripts/deps.sh test installs it). Fails when:
#   - its method and notification maps do not name what docs/protocol.md's "At a glance"
#     tables name (ProtocolDocumentTests holds those to the daemon), bar the methods the
#     client cannot use;
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

# Served by the daemon but not typed, as Web/scanbridge.d.mts says why.
left_out=(tokens.create tokens.list tokens.revoke store.migrate handlers.register)

# documented HEADER: the names in docs/protocol.md's "At a glance" table whose first column is HEADER.
documented() {
    awk -F'|' -v header="$1" '
        /^## At a glance/ { inside = 1; next }
        inside && /^## / { exit }
        !/^\|/ { table = ""; next }
        { name = $2; gsub(/^ +| +$/, "", name) }
        table == "" { table = name; next }
        table == header && name ~ /^`/ { gsub(/`/, "", name); print name }
    ' docs/protocol.md | sort
}

# typed INTERFACE: the members of an interface of Web/scanbridge.d.mts.
typed() {
    awk -v name="$1" '
        $0 ~ "^export interface " name " [{]" { inside = 1; next }
        inside && /^[}]/ { exit }
        inside && /^  "?[a-z][A-Za-z.]*"?: / { key = $1; gsub(/[":]/, "", key); print key }
    ' Web/scanbridge.d.mts | sort
}

echo "== the methods and notifications typed are those docs/protocol.md names"
if ! documented method | grep -q .; then
    echo "check-types: no methods table found under docs/protocol.md's \"## At a glance\"" >&2
    exit 1
fi
diff -u --label "docs/protocol.md's methods" --label "Methods in Web/scanbridge.d.mts" \
    <(documented method | grep -vxF -f <(printf '%s\n' "${left_out[@]}")) <(typed Methods)
diff -u --label "docs/protocol.md's notifications" --label "Notifications in Web/scanbridge.d.mts" \
    <(documented notification) <(typed Notifications)

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
