"""Pipeline events: the read-only ``Event`` record, the dispatcher that hands events to
``on_event`` sinks, the scope ``toolhooks.emit`` stamps them with, the events' names
(``_names``), and the one reader that rebuilds calls from logged events (``_calls``: whatif,
the desk). Above ``registry``.
"""
