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
    print(f"{passed()} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
