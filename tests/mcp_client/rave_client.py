"""The official MCP Python SDK (PyPI `mcp`) against rave-server: every demo tool, run by R.

Run by `cargo xtask test` with a local venv:
    python rave_client.py PATH/TO/rave-server R_LIBRARY
where R_LIBRARY holds the demo R package (runtime/rave-server/ravedemo). Serves
tool-specs/rave/ over stdio (with and without --allow-dangerous) and over Streamable HTTP,
calls each of the six tools, and checks every output against the tool's output schema; runs
the pipeline as a task to its result, and cancels another (under 2025-11-25, and under
2026-07-28's tasks extension).
Prints `N passed, 0 failed` and exits non-zero on the first failed check.
"""
import asyncio
import json
import time
import pathlib
import subprocess
import sys

import jsonschema
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import ElicitResult

from checks import check, passed

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPECS = ROOT / "tool-specs/rave"
CATALOG = ROOT / "generated/catalog/ravedemo/tools.json"

# Each demo tool with arguments, in an order that needs the worker's state.
CALLS = [
    ("ravedemo-mcp_tool_subject_list", {"project": "demo", "limit": 10}),
    ("ravedemo-mcp_tool_subject_load", {"subject_id": "demo/DemoSubject", "epochs": ["auditory_onset"]}),
    ("ravedemo-mcp_tool_pipeline_run", {"targets": ["settings", "power"]}),
    ("ravedemo-mcp_tool_pipeline_status", {"detail": "details"}),
    ("ravedemo-mcp_tool_config_set_cache", {"max_size_mb": 256, "clear_existing": True}),
    ("ravedemo-mcp_tool_config_get", {}),
]


def valid(schema, value):
    try:
        jsonschema.Draft202012Validator(schema).validate(value)
        return True
    except jsonschema.ValidationError as e:
        print(f"  {e.message} at {list(e.absolute_path)}", file=sys.stderr)
        return False


async def run_all(call, tools, where):
    """Calls every demo tool; each output validates against its schema."""
    outputs = {}
    for name, args in CALLS:
        result = await call(name, args)
        check(result.is_error is False, f"[{where}] {name} succeeds: {result.content[0].text if result.content else ''}")
        out = result.structured_content
        check(valid(tools[name].output_schema, out), f"[{where}] {name}'s output matches its output schema: {out}")
        outputs[name] = out
    check(outputs["ravedemo-mcp_tool_subject_list"]["count"] == 2, f"[{where}] two demo subjects")
    check(outputs["ravedemo-mcp_tool_subject_load"]["epochs"] == ["auditory_onset"], f"[{where}] a one-element R vector stays an array")
    check(outputs["ravedemo-mcp_tool_pipeline_status"]["done"] == 2, f"[{where}] the worker's state survives between calls")
    check(outputs["ravedemo-mcp_tool_config_get"]["settings"]["max_size_mb"] == 256, f"[{where}] settings kept in the state")
    failed = await call("ravedemo-mcp_tool_subject_load", {"subject_id": "nope/none"})
    check(failed.is_error is True and "no subject `nope/none`" in failed.content[0].text, f"[{where}] an R stop() is a tool error with its message")


async def stdio(server, lib):
    expected = sorted(t["name"] for t in json.loads(CATALOG.read_text())["tools"])
    params = StdioServerParameters(command=server, args=[str(SPECS), "--r-lib", lib, "--allow-dangerous"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "rave-server", "server name")
            listed = await session.list_tools()
            tools = {t.name: t for t in listed.tools}
            check(sorted(tools) == expected, f"the catalog's six tools listed: {sorted(tools)}")
            run = tools["ravedemo-mcp_tool_pipeline_run"]
            check(run.annotations.destructive_hint is True, "pipeline_run is marked destructive")
            await run_all(session.call_tool, tools, "stdio")
    # Without --allow-dangerous, the destructive tool is refused before R runs it.
    params = StdioServerParameters(command=server, args=[str(SPECS), "--r-lib", lib])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            refused = await session.call_tool("ravedemo-mcp_tool_pipeline_run", {})
            check(refused.is_error is True and "--allow-dangerous" in refused.content[0].text,
                  f"a dangerous tool without approval is refused: {refused.content[0].text}")
            fine = await session.call_tool("ravedemo-mcp_tool_config_get", {})
            check(fine.is_error is False, "other tools still run")
    # A client that can be asked (MCP elicitation): the user decides per call.
    asked = []

    def answering(approve):
        async def callback(context, params):
            asked.append(params.message)
            return ElicitResult(action="accept", content={"approve": approve})
        return callback

    for approve in (True, False):
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, elicitation_callback=answering(approve)) as session:
                await session.initialize()
                await session.call_tool("ravedemo-mcp_tool_subject_load", {"subject_id": "demo/KC"})
                result = await session.call_tool("ravedemo-mcp_tool_pipeline_run", {"targets": ["power"]})
                question = asked[-1] if asked else ""
                check("ravedemo-mcp_tool_pipeline_run" in question and "destructive" in question and '"power"' in question,
                      f"the user is asked, with the tool and its arguments: {question!r}")
                if approve:
                    check(result.is_error is False and result.structured_content["success"] is True,
                          f"an approved call runs: {result.content[0].text}")
                else:
                    check(result.is_error is True and "did not approve" in result.content[0].text,
                          f"a declined call is refused: {result.content[0].text}")


def tasks(server, lib):
    """An R pipeline called as a task (MCP 2025-11-25), over stdio. The Python SDK has no
    task API, so this speaks JSON-RPC lines itself: one task polled and run to its result,
    another cancelled while R runs it; the worker serves the next call."""
    proc = subprocess.Popen([server, str(SPECS), "--r-lib", lib, "--allow-dangerous"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    statuses = []

    def ask(id, method, params):
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            message = json.loads(proc.stdout.readline())
            if message.get("method") == "notifications/tasks/status":
                statuses.append((message["params"]["taskId"], message["params"]["status"]))
            elif message.get("id") == id:
                return message

    try:
        init = ask(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "tasks", "version": "0"}})
        check("call" in init["result"]["capabilities"]["tasks"]["requests"]["tools"],
              "the server can make tool calls tasks")
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        listed = ask(2, "tools/list", {})["result"]["tools"]
        run = next(t for t in listed if t["name"] == "ravedemo-mcp_tool_pipeline_run")
        check(run["execution"] == {"taskSupport": "optional"}, f"pipeline_run may be a task: {run.get('execution')}")
        ask(3, "tools/call", {"name": "ravedemo-mcp_tool_subject_load", "arguments": {"subject_id": "demo/KC"}})
        call = {"name": "ravedemo-mcp_tool_pipeline_run", "arguments": {"targets": ["power"]}, "task": {"ttl": 60000}}
        created = ask(4, "tools/call", call)["result"]["task"]
        check(created["status"] == "working" and created["ttl"] == 60000, f"the call is a working task: {created}")
        of = {"taskId": created["taskId"]}
        polled = ask(5, "tasks/get", of)["result"]
        check(polled["status"] in ("working", "completed"), f"tasks/get polls it: {polled['status']}")
        result = ask(6, "tasks/result", of)["result"]
        check(result["isError"] is False and result["structuredContent"]["success"] is True,
              f"tasks/result gives the pipeline's result: {result}")
        check(result["_meta"]["io.modelcontextprotocol/related-task"] == of, "the result names its task")
        check(ask(7, "tasks/get", of)["result"]["status"] == "completed", "the task is completed")
        check((created["taskId"], "completed") in statuses, f"its status was sent: {statuses}")
        listed = ask(8, "tasks/list", {})["result"]["tasks"]
        check([t["taskId"] for t in listed] == [created["taskId"]], "tasks/list lists it")
        # Cancelled while R runs it: the task is, and the worker goes on serving.
        second = ask(9, "tools/call", call)["result"]["task"]
        cancelled = ask(10, "tasks/cancel", {"taskId": second["taskId"]})["result"]
        check(cancelled["status"] == "cancelled", f"tasks/cancel cancels it: {cancelled}")
        none = ask(11, "tasks/result", {"taskId": second["taskId"]})
        check(none["error"]["code"] == -32602, f"a cancelled task has no result: {none}")
        after = ask(12, "tools/call", {"name": "ravedemo-mcp_tool_pipeline_status", "arguments": {}})["result"]
        check(after["isError"] is False, f"the next call runs: {after}")
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def extension_tasks(server, lib):
    """The same pipeline under MCP 2026-07-28's tasks extension, over stdio: the client
    declares the extension per request and the server makes the call a task; it is polled
    with tasks/get to its inlined result, and a second one cancelled while R runs it."""
    proc = subprocess.Popen([server, str(SPECS), "--r-lib", lib, "--allow-dangerous"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "extensions": {"io.modelcontextprotocol/tasks": {}}}}

    def ask(id, method, params):
        params = dict(params, _meta=meta)
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            message = json.loads(proc.stdout.readline())
            if message.get("id") == id:
                return message

    try:
        found = ask(1, "server/discover", {})["result"]
        check("io.modelcontextprotocol/tasks" in found["capabilities"]["extensions"],
              f"server/discover offers the tasks extension: {found['capabilities']}")
        loaded = ask(2, "tools/call", {"name": "ravedemo-mcp_tool_subject_load", "arguments": {"subject_id": "demo/KC"}})
        check(loaded["result"]["resultType"] == "complete", f"a short tool is answered at once: {loaded}")
        call = {"name": "ravedemo-mcp_tool_pipeline_run", "arguments": {"targets": ["power"]}}
        created = ask(3, "tools/call", call)["result"]
        check(created["resultType"] == "task" and created["status"] == "working",
              f"the server makes the pipeline a task: {created}")
        of = {"taskId": created["taskId"]}
        polls, task = 0, created
        while task["status"] == "working" and polls < 600:
            time.sleep(task["pollIntervalMs"] / 1000 / 4)
            polls += 1
            task = ask(3 + polls, "tasks/get", of)["result"]
        check(task["status"] == "completed" and task["result"]["structuredContent"]["success"] is True,
              f"tasks/get carries the pipeline's result once done, after {polls} polls: {task}")
        second = ask(1000, "tools/call", call)["result"]
        ack = ask(1001, "tasks/cancel", {"taskId": second["taskId"]})
        check(ack["result"]["resultType"] == "complete", f"tasks/cancel is acknowledged: {ack}")
        gone = ask(1002, "tasks/get", {"taskId": second["taskId"]})["result"]
        check(gone["status"] == "cancelled" and "result" not in gone, f"the task is cancelled: {gone}")
        listed = ask(1003, "tasks/list", {})
        check(listed["error"]["code"] == -32601, f"the extension has no tasks/list: {listed}")
        after = ask(1004, "tools/call", {"name": "ravedemo-mcp_tool_pipeline_status", "arguments": {}})["result"]
        check(after["isError"] is False, f"the next call runs: {after}")
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


async def http(server, lib):
    proc = subprocess.Popen([server, str(SPECS), "--r-lib", lib, "--allow-dangerous", "--http", "127.0.0.1:0"],
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        check("serving MCP at http://" in line, f"rave-server says where it listens: {line!r}")
        url = line.split("serving MCP at ")[1].strip()
        async with Client(url) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            await run_all(client.call_tool, tools, "http")
    finally:
        proc.terminate()
        code = proc.wait(timeout=30)
    check(code == 0, f"rave-server shuts down cleanly on SIGTERM (exit {code})")


async def main(server, lib):
    await stdio(server, lib)
    tasks(server, lib)
    extension_tasks(server, lib)
    await http(server, lib)
    print(f"{passed()} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
