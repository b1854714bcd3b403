"""Where paused calls wait: the ``ApprovalStore`` contract and its memory, SQLite and Redis
implementations, and the ``[state] url`` connection they and the shared plugins use. Above
``events``.
"""
