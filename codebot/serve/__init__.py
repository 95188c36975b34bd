"""The serve layer: the front ends. The command line (``cli``), the MCP server (``mcp``) and
the GitHub Action's jobs (``action``). Nothing imports this layer.
"""
