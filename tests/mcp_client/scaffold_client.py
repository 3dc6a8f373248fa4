"""The official MCP Python SDK (PyPI `mcp`) drives a server `toolgen init --server` wrote (the
one README.md's "With the official Rust SDK" builds, on rmcp, and the same on toolgen-runtime),
over stdio and over Streamable HTTP (`--http 127.0.0.1:0`), in both protocol eras: its one tool,
`hello`, is listed as its spec says and answers; arguments that break the schema are a tool error.

Run by `cargo xtask test` (xtask/src/outside.rs): python scaffold_client.py PATH/TO/weather
Prints `N passed, 0 failed` and exits non-zero on the first failed check.
"""
import asyncio
import subprocess
import sys

from mcp import Client, StdioServerParameters

from checks import check, passed


async def session(server, where):
    for mode in ("legacy", "2026-07-28"):
        await checks(server, f"{where}, {mode}", mode)


async def checks(server, where, mode):
    async with Client(server, mode=mode) as client:
        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        check(sorted(tools) == ["hello"], f"{where}: the scaffolded tool listed: {sorted(tools)}")
        hello = tools["hello"]
        check(hello.input_schema.get("required") == ["name"], f"{where}: hello's input schema")
        check(hello.output_schema["properties"]["greeting"]["type"] == "string", f"{where}: hello's output schema")
        check(hello.annotations.read_only_hint is True, f"{where}: read-only annotation from the spec")
        result = await client.call_tool("hello", {"name": "Ada"})
        check(result.is_error is False, f"{where}: hello succeeds")
        check(result.structured_content == {"greeting": "Hello, Ada!"}, f"{where}: hello's output: {result.structured_content}")
        bad = await client.call_tool("hello", {"name": 3})
        check(bad.is_error is True, f"{where}: arguments that break the schema are a tool error")


async def main(server):
    await session(StdioServerParameters(command=server, args=[]), "stdio")
    proc = subprocess.Popen([server, "--http", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        check("serving MCP at http://" in line, f"the server says where it listens: {line!r}")
        await session(line.split("serving MCP at ")[1].strip(), "HTTP")
    finally:
        proc.kill()
        proc.wait()
    print(f"{passed()} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
