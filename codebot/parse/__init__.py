"""The parse layer: which files to index (``files``), their symbols (``extract``, with the
language specs of ``codebot.languages``) and the chunks of code outside any definition
(``chunks``). Imports: ``core``, ``git``, ``languages``.
"""
