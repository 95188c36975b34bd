"""The graph layer: raw calls resolved into edges (``resolve``, with per-language rules in
``resolvers/``), the call graph as packed arrays (``callgraph``, ``io``) and its index-time
analytics (``analytics``: PageRank, communities, entry points). Imports: ``core``.
"""
