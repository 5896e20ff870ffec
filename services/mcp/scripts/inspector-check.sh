#!/usr/bin/env bash
# An independent MCP client check: the official MCP Inspector's CLI connects to the server over streamable
# HTTP with the bearer key (the same three parts as any client config: URL, transport `http`, header), lists
# the tools, and this script checks that all of them are there: as many as this checkout's catalogue holds
# for the key's scope (SCOPE, read-write unless told) in the toolsets and read-only mode the URL selects
# (`/api/mcp/x/leads,calls`, `/readonly`), or EXPECTED if set.
#
# Usage (against a running stack, e.g. `npm start`):
#   KEY=vk_live_… services/mcp/scripts/inspector-check.sh                 # URL defaults to the local gateway
#   URL=https://api.example.com/api/mcp KEY=… SCOPE=read services/mcp/scripts/inspector-check.sh   # a read key sees the read tools
#   URL=https://api.example.com/api/mcp/x/leads,calls KEY=… services/mcp/scripts/inspector-check.sh    # two toolsets' tools
set -euo pipefail

URL="${URL:-http://127.0.0.1:8080/api/mcp}"
KEY="${KEY:?set KEY to an API key (npm run -s admin -- key create --org ORG --scope read-write --quota 1000)}"
SCOPE="${SCOPE:-read-write}"
if [ -z "${EXPECTED:-}" ]; then
  EXPECTED="$(cd "$(dirname "$0")/.." && URL="$URL" SCOPE="$SCOPE" KEY="$KEY" node --conditions=source --import tsx --input-type=module -e '
const { ToolCatalog } = await import("./src/mcp/catalog.ts");
const { mcpSelection } = await import("@voice/proto");
// A test key (vk_test_…) acts for its organization'"'"'s test twin, which alone is offered the testing toolset.
const org_id = process.env.KEY.startsWith("vk_test_") ? "org_test_inspector" : "org_inspector";
const selected = mcpSelection(new URL(process.env.URL).pathname, {}, { org_id });
if (!selected.ok) throw new Error(selected.message);
console.log(new ToolCatalog().list({ scope: process.env.SCOPE, org_id }, selected.selection).length);
')"
fi
# The Inspector 2.x needs Node >= 22.19; on older Node the last 1.x (same CLI flags) runs instead.
if [ -z "${INSPECTOR:-}" ]; then
  if node -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 22 || (major === 22 && minor >= 19) ? 0 : 1)'; then
    INSPECTOR="@modelcontextprotocol/inspector@latest"
  else
    INSPECTOR="@modelcontextprotocol/inspector@1.0.3"
  fi
fi

output="$(npx --yes "$INSPECTOR" --cli "$URL" --transport http --header "Authorization: Bearer $KEY" --method tools/list)"

printf "%s" "$output" | URL="$URL" EXPECTED="$EXPECTED" node -e '
let text = "";
process.stdin.on("data", (chunk) => (text += chunk));
process.stdin.on("end", () => {
  const { tools } = JSON.parse(text);
  const names = tools.map((tool) => tool.name).sort();
  const expected = Number(process.env.EXPECTED);
  const incomplete = tools.filter((tool) => !tool.outputSchema || !tool.annotations || !tool.description).map((tool) => tool.name);
  console.log(`${names.length} tools: ${names.join(", ")}`);
  if (incomplete.length > 0) {
    console.error(`tools without description, annotations or output schema: ${incomplete.join(", ")}`);
    process.exit(1);
  }
  if (names.length !== expected) {
    console.error(`expected ${expected} tools, got ${names.length}`);
    process.exit(1);
  }
  console.log(`OK: the MCP Inspector CLI lists ${expected} tools at ${process.env.URL ?? "the server"}`);
});
'
