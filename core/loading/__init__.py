"""Plugins from the outside: the ``toolhooks`` entry-point group, building plugins from their
config tables, and the inventory ``Runtime.plugins()`` and ``toolhooks plugins`` describe. Above
``config``.
"""
