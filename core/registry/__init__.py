"""Plugins in memory: the ``hookimpl`` marker, the registry that orders handlers by priority and
caches them per tool, and the one ``*`` name matcher. Above ``records``.
"""
