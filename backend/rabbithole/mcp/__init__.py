"""`rabbithole mcp`: the Model Context Protocol server (official `mcp` SDK).

* server.py: the MCPServer with its tools and resources, over a :class:`~rabbithole.mcp.backend.McpBackend`;
* tools.py / resources.py: what a calling model can use (each answer an API schema: document, page, section,
  verbatim text with its offsets);
* errors.py: domain errors as MCP errors with their message;
* transports.py: stdio (`rabbithole mcp`) and streamable HTTP mounted on the API server at /mcp.
"""
