"""The comparison server for `cargo xtask bench-server`: the official MCP Python SDK
(PyPI `mcp` 2.x, MCPServer) serving a tool equivalent to editormcp-server's
`project.info` over stdio."""
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
    server.run()
