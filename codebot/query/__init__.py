"""The query layer: answers from an index. Search and its ranking (``search``, ``rerank``,
``graph_stage``), what is printed (``render``, ``graph_output``), context packing, the repo map,
impact reports, evaluation and ``ask``. Imports: every layer below ``share``.
"""
