"""The built-in plugins. Each is registered through the ``toolhooks`` entry-point group."""
