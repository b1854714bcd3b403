"""The ``Runtime``: plugins, tools, config and the store in one object (``_runtime``), its approval
methods (``_approvals``), and one call from proposal to outcome (``_call``), the one place where
the stages and the approval step meet. The top layer of the core.
"""
