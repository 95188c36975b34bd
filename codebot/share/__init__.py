"""The share layer: the index as an artifact (``artifacts``), the stores that hold artifacts
(``remote``, ``github``) and the workflows over them (``sync``: pull, publish, init).
Imports: every layer below ``serve``.
"""
