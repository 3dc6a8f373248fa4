"""The official MCP Python SDK (PyPI `mcp`) drives the `weather` server that
README.md's "Use toolgen in your project" builds, over stdio.

Run by `cargo xtask test` (xtask/src/outside.rs): python readme_weather.py PATH/TO/weather
Prints `N passed, 0 failed` and exits non-zero on the first failed check.
"""
import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from checks import check, passed


async def main(server):
    params = StdioServerParameters(command=server, args=[])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "weather", f"server name: {init.server_info.name}")

            listed = await session.list_tools()
            tools = {t.name: t for t in listed.tools}
            check(sorted(tools) == ["forecast", "hello"], f"both scaffolded tools listed: {sorted(tools)}")
            hello = tools["hello"]
            check(hello.input_schema.get("required") == ["name"], "hello's input schema")
            check(hello.output_schema["properties"]["greeting"]["type"] == "string", "hello's output schema")
            check(hello.annotations.read_only_hint is True, "read-only annotation from the spec")

            result = await session.call_tool("hello", {"name": "Ada"})
            check(result.is_error is False, "hello succeeds")
            check(result.structured_content == {"greeting": "Hello, Ada!"}, f"hello's output: {result.structured_content}")

            result = await session.call_tool("forecast", {"query": "Oslo"})
            check(result.is_error is False, "forecast succeeds")
            check(result.structured_content["result"] == "Clear skies over Oslo", f"forecast's output: {result.structured_content}")

            bad = await session.call_tool("forecast", {"query": 3})
            check(bad.is_error is True, "arguments that break the schema are a tool error")
    print(f"{passed()} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
