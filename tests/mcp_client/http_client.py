"""The official MCP Python SDK (PyPI `mcp`) against editormcp-server over Streamable HTTP.

Run by `cargo xtask test` with a local venv: python http_client.py PATH/TO/editormcp-server
Starts the server on free loopback ports (stateful, stateless, with a token), drives it with
the SDK's client in both protocol eras (the 2025-11-25 handshake and 2026-07-28 per-request
envelopes), and checks the transport's refusals with plain HTTP requests.
Prints `N passed, 0 failed` and exits non-zero on the first failed check.
"""
import asyncio
import json
import os
import pathlib
import subprocess
import sys
import urllib.error
import urllib.request

import httpx2
from mcp import Client

from checks import check, check_texture_content, check_texture_log, passed

CATALOG = pathlib.Path(__file__).resolve().parents[2] / "generated/catalog/editormcp/tools.json"
TOKEN = "a-long-random-test-token-0123456789"


class Served:
    """editormcp-server --http on a free port, for the length of a `with`."""

    def __init__(self, server, *args, env=None):
        self.cmd = [server, "--http", "127.0.0.1:0", *args]
        self.env = env

    def __enter__(self):
        self.proc = subprocess.Popen(self.cmd, stderr=subprocess.PIPE, text=True, env=self.env)
        line = self.proc.stderr.readline()
        check("serving MCP at http://" in line, f"the server says where it listens: {line!r}")
        self.url = line.split("serving MCP at ")[1].strip()
        return self

    def __exit__(self, *exc):
        self.proc.terminate()  # SIGTERM: a graceful shutdown
        code = self.proc.wait(timeout=20)
        check(code == 0, f"the server shuts down cleanly on SIGTERM (exit {code})")


def post(url, body, headers=None, data=None):
    """One raw POST: (status, headers, body text)."""
    h = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    h.update(headers or {})
    payload = data if data is not None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=payload, headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def initialize_body():
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}


async def all_tools(client, pages):
    """Every tool, page by page, following nextCursor."""
    names, cursor = [], None
    while True:
        page = await client.list_tools(cursor=cursor)
        pages.append(len(page.tools))
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if not cursor:
            return names


async def sdk_checks(url, mode):
    expected = sorted(t["name"] for t in json.loads(CATALOG.read_text())["tools"])
    logs = []

    async def on_log(params):
        logs.append(params)

    async with Client(url, mode=mode, logging_callback=on_log, log_level="info") as client:
        check(client.server_info.name == "editormcp-server", f"[{mode}] server name")
        pages = []
        names = await all_tools(client, pages)
        check(names == expected, f"[{mode}] every tool listed once, in order ({len(names)} of {len(expected)})")
        check(len(pages) > 1 and max(pages) <= 5, f"[{mode}] listed in pages of at most 5: {pages}")
        result = await client.call_tool("scene.hierarchy.dump", {"scenePath": "Assets/Scenes/Main.unity"})
        check(result.is_error is False, f"[{mode}] a call succeeds")
        roots = [r["name"] for r in result.structured_content["rootObjects"]]
        check(roots == ["Main Camera", "Root", "Canvas"], f"[{mode}] its structured content")
        texture = await client.call_tool("asset.info", {"assetPath": "Assets/Textures/Logo.png"})
        check_texture_content(texture.content, f"[{mode}] ")
        check_texture_log(logs, f"[{mode}] ")
        read = await client.read_resource("unity://project/info")
        check(json.loads(read.contents[0].text)["unityVersion"], f"[{mode}] a resource read")
        prompt = await client.get_prompt("inspect-scene", {"scenePath": "Assets/Scenes/Main.unity"})
        check("Main.unity" in prompt.messages[0].content.text, f"[{mode}] a prompt filled in")
        bad = await client.call_tool("scene.hierarchy.dump", {})
        check(bad.is_error is True and "scenePath" in bad.content[0].text, f"[{mode}] invalid arguments are a tool error naming the parameter")
        # Calls sent together are all answered.
        many = await asyncio.gather(*[client.call_tool("go.find", {"namePattern": "*"}) for _ in range(16)])
        check(all(m.is_error is False for m in many), f"[{mode}] 16 concurrent calls answered")
        return client.protocol_version


async def token_checks(url):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}) as http:
        from mcp.client.streamable_http import streamable_http_client
        from mcp import ClientSession
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                check(len(listed.tools) > 0, "with the token, the SDK client lists tools")


def raw_checks(url):
    status, headers, _ = post(url, initialize_body())
    session = headers.get("mcp-session-id")
    check(status == 200 and session and len(session) == 32, f"initialize opens a session ({status}, {session})")
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    status, _, body = post(url, listing)
    check(status == 400 and "Mcp-Session-Id" in body, f"a request without the session id gets 400 ({status})")
    status, _, _ = post(url, listing, {"mcp-session-id": "0" * 32})
    check(status == 404, f"an unknown session gets 404 ({status})")
    status, _, _ = post(url, listing, {"mcp-session-id": session, "mcp-protocol-version": "1999-01-01"})
    check(status == 400, f"an unsupported MCP-Protocol-Version gets 400 ({status})")
    status, _, _ = post(url, listing, {"mcp-session-id": session, "origin": "http://attacker.example"})
    check(status == 403, f"a foreign Origin gets 403 ({status})")
    status, _, _ = post(url, listing, {"mcp-session-id": session, "origin": "http://localhost:3000"})
    check(status == 200, f"a loopback Origin is served ({status})")
    status, _, _ = post(url, None, {"mcp-session-id": session}, data=b"[" + b" " * (5 * 1024 * 1024) + b"]")
    check(status == 413, f"a body over the limit gets 413 ({status})")
    status, _, body = post(url, listing, {"mcp-session-id": session})
    check(status == 200 and "tools" in json.loads(body)["result"], "and the server keeps serving")
    status, _, _ = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"mcp-session-id": session})
    check(status == 202, f"a notification is acknowledged with 202 ({status})")
    req = urllib.request.Request(url, headers={"mcp-session-id": session}, method="DELETE")
    with urllib.request.urlopen(req, timeout=20) as r:
        check(r.status == 204, "DELETE ends the session")
    status, _, _ = post(url, listing, {"mcp-session-id": session})
    check(status == 404, f"an ended session gets 404 ({status})")


def token_refusals(url):
    listing = initialize_body()
    status, headers, _ = post(url, listing)
    check(status == 401 and headers.get("www-authenticate", "").startswith("Bearer"), f"no token: 401 with WWW-Authenticate ({status})")
    status, _, body = post(url, listing, {"authorization": "Bearer wrong-token-wrong-token"})
    check(status == 401 and "wrong-token" not in body, f"a wrong token: 401, and the token is not echoed ({status})")
    status, _, _ = post(url, listing, {"authorization": f"Bearer {TOKEN}"})
    check(status == 200, f"the right token is served ({status})")


async def main(server):
    with Served(server, "--page-size", "5") as s:
        legacy = await sdk_checks(s.url, "legacy")
        check(legacy == "2025-11-25", f"handshake era negotiated 2025-11-25 ({legacy})")
        modern = await sdk_checks(s.url, "auto")
        check(modern == "2026-07-28", f"the SDK's auto mode discovers 2026-07-28 ({modern})")
        raw_checks(s.url)
    with Served(server, "--page-size", "5", "--stateless") as s:
        await sdk_checks(s.url, "legacy")
        status, headers, _ = post(s.url, initialize_body())
        check(status == 200 and headers.get("mcp-session-id") is None, "stateless: no session id")
    env = dict(os.environ, EDITORMCP_TOKEN=TOKEN)
    with Served(server, "--token-env", "EDITORMCP_TOKEN", env=env) as s:
        token_refusals(s.url)
        await token_checks(s.url)
    refused = subprocess.run([server, "--http", "0.0.0.0:0"], capture_output=True, text=True, timeout=20)
    check(refused.returncode != 0 and "without authentication" in refused.stderr, "a non-loopback bind without a token is refused")
    print(f"{passed()} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
