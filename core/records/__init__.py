"""The values that cross the hook boundary: calls, senders, tool specs, what hooks return, results,
outcomes, the read-only params views, errors, and the canonical JSON digests are taken over. The
lowest layer: it imports nothing else of toolhooks.
"""
