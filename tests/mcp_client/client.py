"""A real MCP client (the official Python SDK, PyPI `mcp`) drives editormcp-server over stdio.

Run by `cargo xtask test` with a local venv: python client.py PATH/TO/editormcp-server
Prints `N passed, 0 failed` and exits non-zero on the first failed check.
"""
import asyncio
import json
import pathlib
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from checks import check, check_texture_content, check_texture_log, passed


async def main(server):
    params = StdioServerParameters(command=server, args=[])
    logs = []

    async def on_log(params):
        logs.append(params)

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, logging_callback=on_log) as session:
            init = await session.initialize()
            check(init.protocol_version in ("2025-11-25", "2025-06-18"), f"protocol version negotiated: {init.protocol_version}")
            check(init.server_info.name == "editormcp-server", "server name")

            listed = await session.list_tools()
            tools = {t.name: t for t in listed.tools}
            catalog = pathlib.Path(__file__).resolve().parents[2] / "generated/catalog/editormcp/tools.json"
            expected = sorted(t["name"] for t in json.loads(catalog.read_text())["tools"])
            check(sorted(tools) == expected, f"the catalog's {len(expected)} tools listed, got {sorted(tools)}")
            check(len(tools) >= 18, "the seed's 18 core tools, at least")
            dump = tools["scene.hierarchy.dump"]
            check(dump.title == "Dump Scene Hierarchy", "title")
            check(dump.input_schema.get("required") == ["scenePath"], "input schema")
            check("$defs" in (dump.output_schema or {}), "recursive output schema with $defs")
            check(dump.annotations.read_only_hint is True, "read-only annotation")
            setp = tools["go.setParent"]
            check(setp.annotations.read_only_hint is False and setp.annotations.destructive_hint is False, "safe-write annotations")

            result = await session.call_tool("scene.hierarchy.dump", {"scenePath": "Assets/Scenes/Main.unity"})
            check(result.is_error is False, "hierarchy dump succeeds")
            roots = result.structured_content["rootObjects"]
            check([r["name"] for r in roots] == ["Main Camera", "Root", "Canvas"], "root objects in sibling order")
            check(json.loads(result.content[0].text) == result.structured_content, "text content mirrors structuredContent")

            texture = await session.call_tool("asset.info", {"assetPath": "Assets/Textures/Logo.png"})
            check(texture.structured_content["type"] == "Texture2D", "asset.info answers")
            check_texture_content(texture.content, "")
            check_texture_log(logs, "")

            moved = await session.call_tool("go.setParent", {"childPath": "Root/Enemies/Goblin", "parentPath": "Root/Enemies/Container"})
            check(moved.structured_content["newHierarchyPath"] == "Root/Enemies/Container/Goblin", "go.setParent reparents")
            found = await session.call_tool("go.find", {"namePattern": "Gob*"})
            check(found.structured_content["matches"][0]["hierarchyPath"] == "Root/Enemies/Container/Goblin", "the move is visible")

            bad = await session.call_tool("scene.hierarchy.dump", {})
            check(bad.is_error is True, "invalid arguments come back as a tool error")
            check("scenePath" in bad.content[0].text, "the error names the missing parameter")
            resources = await session.list_resources()
            check([str(r.uri) for r in resources.resources] == ["unity://project/info"], "a resource listed")
            read = await session.read_resource("unity://project/info")
            check(json.loads(read.contents[0].text)["unityVersion"], "the resource read")
            prompts = await session.list_prompts()
            check([p.name for p in prompts.prompts] == ["inspect-scene"], "a prompt listed")
            prompt = await session.get_prompt("inspect-scene", {"scenePath": "Assets/Scenes/Main.unity"})
            check("Assets/Scenes/Main.unity" in prompt.messages[0].content.text, "the prompt filled in")
            await session.send_ping()
            check(True, "ping")
    print(f"{passed()} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
