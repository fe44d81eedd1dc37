"""The version of curator, in a module of its own so that any layer may name it.

Stored manifests, packs and pages record it; `curator/__init__.py` re-exports it as
`curator.__version__`.
"""

__version__ = "0.1.0"
