"""The comparison server for `cargo xtask bench-server`: the official MCP Python SDK
(PyPI `mcp` 2.x, MCPServer) serving a tool equivalent to editormcp-server's
`project.info`, over stdio, or over Streamable HTTP with `--http PORT` (stateless, JSON
responses: the SDK's fastest HTTP configuration)."""
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("python-sdk-server")


@server.tool(name="project.info", description="Returns high-level project information.")
def project_info() -> dict:
    return {
        "projectName": "SpaceShooter",
        "unityVersion": "2022.3.20f1",
        "renderPipeline": "URP",
        "buildTargets": ["Android", "StandaloneOSX", "StandaloneWindows64"],
        "projectPath": "/projects/SpaceShooter",
    }


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run(
            transport="streamable-http",
            host="127.0.0.1",
            port=int(sys.argv[2]),
            json_response=True,
            stateless_http=True,
        )
    else:
        server.run()
