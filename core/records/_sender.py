"""Who a call is made for: the human or service on the other side of the agent, as policies and
approvals see it. Checked strictly, since plugins trust its fields (``is_owner`` above all)."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._public import public
from ._methods import dataclass_methods


@dataclass_methods(frozen=True)
@dataclass(frozen=True, init=False, repr=False, eq=False)
class Sender:
    """Who the call is made for: the human or service on the other side of the agent."""

    id: str
    name: str | None = None
    channel: str | None = None
    roles: tuple[str, ...] = ()
    is_owner: bool = False
    tenant: str | None = None
    """The organisation the sender belongs to, where one deployment serves several (an OAuth
    token's tenant claim, for the MCP proxy)."""

    def __init__(
        self,
        id: str,
        name: str | None = None,
        channel: str | None = None,
        roles: tuple[str, ...] = (),
        is_owner: bool = False,
        tenant: str | None = None,
    ) -> None:
        # Written here (a generated __init__ is compiled at every start): the same fields, then
        # __post_init__, as the generated one.
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "channel", channel)
        object.__setattr__(self, "roles", roles)
        object.__setattr__(self, "is_owner", is_owner)
        object.__setattr__(self, "tenant", tenant)
        self.__post_init__()

    def __post_init__(self) -> None:
        # Plugins and policies trust these fields (``is_owner`` above all), and a sender often
        # arrives as JSON: the string "false" must not read as an owner, nor 123 as a name.
        problem = _sender_problem(self)
        if problem is not None:
            raise ValueError(problem)
        if type(self.roles) is not tuple:  # a list is accepted and kept as a tuple
            object.__setattr__(self, "roles", tuple(self.roles))

    @classmethod
    def coerce(cls, value: "Sender | Mapping[str, Any] | str | None") -> "Sender | None":
        if value is None or isinstance(value, Sender):
            return value
        if isinstance(value, str):
            return cls(id=value)
        if isinstance(value, Mapping):
            unknown = set(value) - {"id", "name", "channel", "roles", "is_owner", "tenant"}
            if unknown:
                raise ValueError(f"sender has unknown keys: {', '.join(sorted(map(str, unknown)))}")
            return cls(
                id=value.get("id"),  # type: ignore[arg-type]  # checked by __post_init__
                name=value.get("name"),
                channel=value.get("channel"),
                roles=value.get("roles", ()),
                is_owner=value.get("is_owner", False),
                tenant=value.get("tenant"),
            )
        raise ValueError(
            f"sender must be a Sender, a mapping or a string, got {type(value).__name__}"
        )


def _sender_problem(sender: Sender) -> str | None:
    """What is wrong with a sender's field types, or None. Exact types: a str subclass or a
    truthy object is not a bool, and a bare string is not a list of roles."""
    if type(sender.id) is not str:
        return f"sender.id must be a string, got {type(sender.id).__name__}"
    for label in ("name", "channel", "tenant"):
        value = getattr(sender, label)
        if value is not None and type(value) is not str:
            return f"sender.{label} must be a string or null, got {type(value).__name__}"
    roles = sender.roles
    if type(roles) not in (tuple, list) or any(type(role) is not str for role in roles):
        return "sender.roles must be a list of strings"
    if type(sender.is_owner) is not bool:
        got = type(sender.is_owner).__name__
        return f"sender.is_owner must be true or false (a JSON boolean), got {got}"
    return None


public("toolhooks", Sender)
