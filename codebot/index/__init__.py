"""The index layer: the on-disk generations and the code that writes them.

``store`` (formats, the manifest, the lock, reading), ``writer`` (the one writer of a
generation), ``lexical`` and ``vector`` (Tantivy and usearch), ``text`` (what each indexes),
``build``, ``update`` and ``overlay`` (the work tree's uncommitted edits, composed above the
store). Imports: every layer below (core, git, languages, parse, embed, graph).
"""
