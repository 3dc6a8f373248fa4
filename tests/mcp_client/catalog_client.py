"""The official MCP Python SDK (PyPI `mcp`) lists and calls every tool of a tool set.

Run by `cargo xtask test` with a local venv against the servers of this repository served by
rmcp, the official Rust SDK (`--rmcp`):

    python catalog_client.py SET SERVER [ARGS...]

Over stdio and Streamable HTTP (ARGS plus `--http 127.0.0.1:0`), in both protocol eras (the
2025-11-25 handshake and 2026-07-28): the server lists exactly the tools of
`generated/catalog/SET/tools.json`, each one member for member as the catalog has it (but
`execution`, which rmcp's `Tool` does not carry); then every tool is called with the sample
call of its docs page (`generated/docs/src/SET/TOOL.md`: its spec's example, else one built
from its schema), and answers with a result (not a protocol error) whose structured content,
when it has one, validates against the tool's output schema and is what its first text item
says. The client's callbacks accept what the tools ask (an approval, a form, the model).
Prints `N passed, 0 failed` and exits non-zero on the first failed check.
"""
import asyncio
import json
import pathlib
import re
import sys

import jsonschema
from mcp import Client, StdioServerParameters
from mcp.types import CreateMessageResult, ElicitResult, TextContent

from checks import check, passed
from http_client import Served

ROOT = pathlib.Path(__file__).resolve().parents[2]
# What rmcp's `Tool` does not carry (docs/decisions.md).
DROPPED = {"execution"}


async def sampling(context, params):
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text="yes"),
                               model="catalog-test-model", stop_reason="endTurn")


async def elicitation(context, params):
    if getattr(params, "mode", None) == "url":
        return ElicitResult(action="accept")
    fields = params.requested_schema.get("properties", {})
    content = {}
    for k, v in fields.items():
        if "default" in v:
            content[k] = v["default"]
        elif v.get("type") == "boolean":
            content[k] = True
        elif "enum" in v:
            content[k] = v["enum"][0]
        else:
            content[k] = "x"
    return ElicitResult(action="accept", content=content)


async def logging(params):
    pass


def sample_arguments(set_name, tool):
    """The arguments of the sample call on the tool's docs page."""
    page = ROOT / "generated/docs/src" / set_name / f"{tool}.md"
    text = page.read_text()
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        call = json.loads(block)
        if call.get("method") == "tools/call":
            return call["params"].get("arguments", {})
    check(False, f"{page} has a sample tools/call")


async def all_tools(client):
    """Every tool, page after page."""
    tools, cursor = [], None
    while True:
        page = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


async def session(set_name, catalog, server, mode, where):
    era = f"[{set_name}, {where}, {mode}] "
    extra = {} if mode == "legacy" else {"log_level": "debug"}
    async with Client(server, mode=mode, sampling_callback=sampling, elicitation_callback=elicitation,
                      logging_callback=logging, **extra) as client:
        listed = {t.name: t.model_dump(by_alias=True, exclude_none=True, mode="json")
                  for t in await all_tools(client)}
        expected = {t["name"]: {k: v for k, v in t.items() if k not in DROPPED} for t in catalog}
        check(sorted(listed) == sorted(expected), f"{era}the catalog's tools listed: {sorted(listed)}")
        for name, tool in expected.items():
            got = listed[name]
            for key in sorted(set(tool) | set(got)):
                check(got.get(key) == tool.get(key),
                      f"{era}{name}: `{key}` as the catalog has it:\n  {got.get(key)!r}\n  {tool.get(key)!r}")
        for name, tool in expected.items():
            result = await client.call_tool(name, sample_arguments(set_name, name))
            check(result is not None, f"{era}{name} answers")
            if result.is_error:
                continue
            structured = result.structured_content
            if "outputSchema" in tool:
                check(structured is not None, f"{era}{name}: structured content for its output schema")
                schema = tool["outputSchema"]
                errors = [e.message for e in jsonschema.validators.validator_for(schema)(schema).iter_errors(structured)]
                check(not errors, f"{era}{name}: its structured content fits its output schema: {errors}")
            if structured is not None:
                check(json.loads(result.content[0].text) == structured,
                      f"{era}{name}: the text item mirrors the structured content")


async def main(set_name, server, args):
    catalog = json.loads((ROOT / "generated/catalog" / set_name / "tools.json").read_text())["tools"]
    for mode in ("legacy", "2026-07-28"):
        await session(set_name, catalog, StdioServerParameters(command=server, args=args), mode, "stdio")
        with Served(server, *args) as s:
            await session(set_name, catalog, s.url, mode, "HTTP")
    print(f"{passed()} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
