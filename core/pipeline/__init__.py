"""The stages of one call, each a module: what every stage shares (``_context``: the runtime's
context and the call's ``Run``), the call's state and the merge rules as a pure fold
(``_state``), the one handler dispatch every chain uses (``_invoke``), intake (``_intake``),
screening (``_screen``: the before chain, visibility in ``_visibility``, validation and the tools
in ``_tools``), the verdict (``_verdict``), concluding (``_conclude``: execution, the after chain
and the Outcome, rendering in ``_render``), the adjusted-params memory (``_adjusted``), and the
driver that runs the one generator sync or async (``_driver``). Above ``loading``.
"""
