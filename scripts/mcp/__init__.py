"""Tool servers (MCP) on 127.0.0.1 for the end-to-end tests and the bench: see docs/mcp.md."""
