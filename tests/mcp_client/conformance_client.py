"""The official MCP Python SDK (PyPI `mcp`) against runtime/conformance-server, over stdio and
Streamable HTTP, in both protocol eras: the 2025-11-25 handshake, where the server asks the
client with requests of its own, and 2026-07-28, where it answers `InputRequiredResult` and
the SDK's client retries the call with the answers (SEP-2322). In each of the four: an image,
an embedded resource and log messages come back, and a sampling, a form elicitation (with
defaults) and a URL elicitation complete round trips, the SDK client answering with callbacks.

Run by `cargo xtask conformance` with a local venv, once per backend of the tools (Rust, C#
behind the Unity bridge, R behind the R bridge): python conformance_client.py SERVER [ARGS...]
(conformance-server, `conformance-server --bridge HOST:PORT`, `rave-server
tool-specs/conformance --r-lib DIR`). Prints `N passed, 0 failed` and exits non-zero on the first failed check.
"""
import asyncio
import base64
import sys

from mcp import Client, StdioServerParameters
from mcp.types import CreateMessageResult, ElicitResult, TextContent

from checks import check, passed
from http_client import Served

asked = []
logged = []


async def sampling(context, params):
    asked.append(params)
    said = params.messages[0].content.text
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text=f"echo: {said}"),
                               model="python-test-model", stop_reason="endTurn")


async def elicitation(context, params):
    asked.append(params)
    if getattr(params, "mode", None) == "url":
        return ElicitResult(action="accept")
    fields = params.requested_schema["properties"]
    # Every default the form offers, taken as the answer.
    return ElicitResult(action="accept", content={k: v.get("default", "x") for k, v in fields.items()})


async def logging(params):
    logged.append(params)


async def session(server, mode, where):
    """Every check, through one client connected to `server` (a URL or stdio parameters)."""
    era = f"[{where}, {mode}] "
    asked.clear()
    logged.clear()
    extra = {} if mode == "legacy" else {"log_level": "debug"}
    async with Client(server, mode=mode, sampling_callback=sampling, elicitation_callback=elicitation,
                      logging_callback=logging, **extra) as client:
        check(client.protocol_version == ("2025-11-25" if mode == "legacy" else mode),
              f"{era}the protocol version: {client.protocol_version}")
        image = await client.call_tool("test_image_content", {})
        check(image.content[0].type == "image" and image.content[0].mime_type == "image/png",
              f"{era}an image: {image.content}")
        check(base64.b64decode(image.content[0].data).startswith(b"\x89PNG"), f"{era}the image is a PNG")
        embedded = await client.call_tool("test_embedded_resource", {})
        resource = embedded.content[0].resource
        check(embedded.content[0].type == "resource" and str(resource.uri) == "test://embedded-resource"
              and resource.text == "This is an embedded resource content.",
              f"{era}an embedded resource: {embedded.content}")
        logging_result = await client.call_tool("test_tool_with_logging", {})
        check(logging_result.is_error is False, f"{era}the logging tool: {logging_result.content}")
        said = [p.data for p in logged]
        check(said == ["Tool execution started", "Tool processing data", "Tool execution completed"],
              f"{era}its log messages arrive, in order: {said}")
        sampled = await client.call_tool("test_sampling", {"prompt": "Name a colour."})
        check(sampled.is_error is False, f"{era}a sampling round trip: {sampled.content}")
        check(sampled.content[0].text == "LLM response: echo: Name a colour.",
              f"{era}the model's answer comes back: {sampled.content[0].text!r}")
        check(len(asked) == 1 and asked[0].max_tokens == 100, f"{era}the request as the tool made it: {asked}")
        form = await client.call_tool("test_elicitation_sep1034_defaults", {})
        check(form.is_error is False, f"{era}an elicitation round trip: {form.content}")
        text = form.content[0].text
        check("action=accept" in text and "John Doe" in text and "95.5" in text,
              f"{era}the user's answer comes back: {text!r}")
        page = await client.call_tool("test_elicitation_url", {"url": "https://example.com/authorize"})
        check(page.is_error is False and "action=accept" in page.content[0].text,
              f"{era}a URL-mode elicitation round trip: {page.content}")
        check(asked[-1].url == "https://example.com/authorize" and asked[-1].elicitation_id == "conformance-url-1",
              f"{era}the client is sent to the page: {asked[-1]}")
        check(len(asked) == 3, f"{era}each question asked once: {len(asked)}")


async def main(server, args):
    for mode in ("legacy", "2026-07-28"):
        await session(StdioServerParameters(command=server, args=args), mode, "stdio")
        with Served(server, *args) as s:
            await session(s.url, mode, "HTTP")
    print(f"{passed()} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
