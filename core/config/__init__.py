"""The TOML config: where it is found, the shape of every core table, and errors that name the file
and line. Above ``stores``.
"""
