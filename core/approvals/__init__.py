"""The approval step: asking the approver and what each decision means (``_resolve``), the gate
between screening and execution (``_gate``), pausing, resuming and editing (``_resume``),
``Runtime.ask`` (``_ask``) and the config routes (``_routes``). Above ``pipeline``.
"""
