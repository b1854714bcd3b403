"""Pipeline events: the read-only ``Event`` record, the dispatcher that hands events to
``on_event`` sinks, and the scope ``toolhooks.emit`` stamps them with. Above ``registry``.
"""
