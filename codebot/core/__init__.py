"""The bottom layer: the data model, the error tree, configuration and the version.

Nothing here imports another codebot layer.
"""

__version__ = "0.1.0"
