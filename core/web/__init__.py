"""The approvals desk (``toolhooks serve``): a web app over the approval store and the event log.

Needs ``toolhooks[web]`` (FastAPI, uvicorn, Jinja2); nothing imports it unless the desk runs.
"""

from ._app import create_app
from ._auth import LOOPBACK_HOSTS, Identity, Sessions, Tokens, add_token, load_tokens
from ._calls import CallLog
from ._desk import Desk, DeskError, open_store

__all__ = [
    "LOOPBACK_HOSTS",
    "CallLog",
    "Desk",
    "DeskError",
    "Identity",
    "Sessions",
    "Tokens",
    "add_token",
    "create_app",
    "load_tokens",
    "open_store",
]
