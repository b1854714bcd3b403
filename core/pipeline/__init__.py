"""The stages of one call, each a module: intake and screening (``_stages``), the before chain and
its merge rules (``_before``), calling one handler (``_invoke``), validation and the tools
(``_tools``), execution and rendering (``_render``), the after chain (``_after``), the verdict
(``_verdict``), visibility, and the driver that runs the one generator sync or async
(``_driver``). Above ``loading``.
"""
