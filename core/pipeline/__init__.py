"""The stages of one call, each a module: what every stage shares (``_context``), intake
(``_intake``), screening (``_screen``: the before chain and its merge rules in ``_before``,
calling one handler in ``_invoke``, visibility, validation and the tools in ``_tools``), the
verdict (``_verdict``), concluding (``_conclude``: execution, rendering in ``_render``, the after
chain in ``_after``), and the driver that runs the one generator sync or async (``_driver``).
Above ``loading``.
"""
