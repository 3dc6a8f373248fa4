"""The official MCP Python SDK (PyPI `mcp`) asked back by a generated server: sampling and
elicitation round trips over Streamable HTTP against runtime/conformance-server, the
SDK client answering with callbacks.

Run by `cargo xtask test` with a local venv: python conformance_client.py PATH/TO/conformance-server
Prints `N passed, 0 failed` and exits non-zero on the first failed check.
"""
import asyncio
import sys

from mcp import Client
from mcp.types import CreateMessageResult, ElicitResult, TextContent

from checks import check, passed
from http_client import Served

asked = []


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


async def main(server):
    with Served(server) as s:
        async with Client(s.url, mode="legacy", sampling_callback=sampling,
                          elicitation_callback=elicitation) as client:
            sampled = await client.call_tool("test_sampling", {"prompt": "Name a colour."})
            check(sampled.is_error is False, f"a sampling round trip: {sampled.content}")
            check(sampled.content[0].text == "LLM response: echo: Name a colour.",
                  f"the model's answer comes back: {sampled.content[0].text!r}")
            check(asked[0].max_tokens == 100, f"the request as the tool made it: {asked[0]}")
            form = await client.call_tool("test_elicitation_sep1034_defaults", {})
            check(form.is_error is False, f"an elicitation round trip: {form.content}")
            text = form.content[0].text
            check("action=accept" in text and "John Doe" in text and "95.5" in text,
                  f"the user's answer comes back: {text!r}")
            page = await client.call_tool("test_elicitation_url", {"url": "https://example.com/authorize"})
            check(page.is_error is False and "action=accept" in page.content[0].text,
                  f"a URL-mode elicitation round trip: {page.content}")
            check(asked[-1].url == "https://example.com/authorize" and asked[-1].elicitation_id == "conformance-url-1",
                  f"the client is sent to the page: {asked[-1]}")
    print(f"{passed()} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
