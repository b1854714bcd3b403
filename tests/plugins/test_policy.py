"""The built-in policy plugin: every rule, the bad inputs, explain(), and runs through a Runtime."""

from __future__ import annotations

import json
import re
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from toolhooks import (
    BeforeToolCallResult,
    ConfigError,
    Runtime,
    Sender,
    ToolCall,
    ToolSpec,
    hookimpl,
)
from toolhooks.plugins.policy import (
    BUILTIN_GROUPS,
    EXTERNAL_BLOCKED_TOOLS,
    SIDE_EFFECT_TOOLS,
    PolicyConfig,
    PolicyPlugin,
    PolicyStep,
    ToolVerdict,
)

EXTERNAL = "builtin:external_origin"


def spec(name: str, *tags: str) -> ToolSpec:
    return ToolSpec(name, tags=frozenset(tags))


def check(
    plugin: PolicyPlugin,
    name: str,
    *tags: str,
    sender: Sender | str | None = None,
    agent_id: str | None = None,
    origin: str = "agent",
    with_spec: bool = True,
) -> BeforeToolCallResult | None:
    call = ToolCall(
        name=name,
        sender=sender,
        agent_id=agent_id,
        origin=origin,
        spec=spec(name, *tags) if with_spec or tags else None,
    )
    return plugin.before_tool_call(call)


def allowed(plugin: PolicyPlugin, name: str, *tags: str, **kw: object) -> bool:
    result = check(plugin, name, *tags, **kw)
    if result is None:
        return True
    assert result.block is True
    assert result.block_reason
    return False


def reason(plugin: PolicyPlugin, name: str, *tags: str, **kw: object) -> str:
    result = check(plugin, name, *tags, **kw)
    assert result is not None and result.block, f"{name} was not blocked"
    assert result.block_reason is not None
    return result.block_reason


def verdict(plugin: PolicyPlugin, tool: str | ToolSpec, **kw: object) -> ToolVerdict:
    (only,) = plugin.explain(tools=[tool], **kw)
    return only


# -- the plugin's shape ---------------------------------------------------------------------------


def test_class_attributes_and_construction():
    assert PolicyPlugin.priority == 10_000
    assert PolicyPlugin.config_key == "tools"
    assert PolicyPlugin.Config is PolicyConfig
    assert PolicyPlugin().config == PolicyConfig()
    assert PolicyPlugin(PolicyConfig(deny=["exec"])).config.deny == ["exec"]
    assert PolicyPlugin({"deny": ["exec"]}).config.deny == ["exec"]


def test_config_defaults():
    config = PolicyConfig()
    assert config.profile == "full"
    assert config.allow == config.deny == config.also_allow == []
    assert config.groups == config.profiles == config.by_agent == config.by_sender == {}
    assert config.elevated.enabled is False
    assert config.elevated.allow_from == []


# -- bad config -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"denyy": ["exec"]}, "denyy"),
        ({"elevated": {"enabeld": True}}, "enabeld"),
        ({"by_sender": {"id:bob": {"allw": ["read"]}}}, "allw"),
        ({"by_agent": {"main": {"profiles": "coding"}}}, "profiles"),
        ({"profiles": {"review": {"allows": ["read"]}}}, "allows"),
    ],
)
def test_unknown_key_is_a_validation_error_naming_it(data, key):
    with pytest.raises(ValidationError) as info:
        PolicyConfig.model_validate(data)
    errors = info.value.errors()
    assert errors[0]["type"] == "extra_forbidden"
    assert errors[0]["loc"][-1] == key


def runtime_with(tools_table: object, **kw: object) -> Runtime:
    return Runtime(config={"plugins": {"only": ["policy"]}, "tools": tools_table}, **kw)


def test_loader_turns_an_unknown_key_into_a_config_error():
    with pytest.raises(ConfigError, match="denyy"):
        runtime_with({"denyy": ["exec"]})


def test_loader_reports_an_unknown_key_in_a_file(tmp_path):
    path = tmp_path / "toolhooks.toml"
    path.write_text(
        '[plugins]\nonly = ["policy"]\n\n[tools]\nprofile = "coding"\nallwo = ["read"]\n'
    )
    with pytest.raises(ConfigError, match="allwo") as info:
        Runtime(config=path)
    assert info.value.line == 6


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"allow": ["group:nope"]}, "tools.allow"),
        ({"deny": ["read", "group:nope"]}, "tools.deny"),
        ({"also_allow": ["group:nope"]}, "tools.also_allow"),
        ({"groups": {"mine": ["group:nope"]}}, "tools.groups.mine"),
        ({"groups": {"group:mine": ["group:nope"]}}, 'tools.groups."group:mine"'),
        ({"profiles": {"x": {"deny": ["group:nope"]}}}, "tools.profiles.x.deny"),
        ({"by_agent": {"a": {"allow": ["group:nope"]}}}, "tools.by_agent.a.allow"),
        ({"by_sender": {"id:bob": {"deny": ["group:nope"]}}}, 'tools.by_sender."id:bob".deny'),
    ],
)
def test_an_unknown_group_is_an_error_naming_it(data, path):
    with pytest.raises(ValidationError) as info:
        PolicyConfig.model_validate(data)
    message = str(info.value)
    assert "unknown group 'group:nope'" in message
    assert path in message
    assert "group:fs" in message  # the known groups are listed


def test_an_unknown_group_through_the_loader():
    with pytest.raises(ConfigError, match="unknown group 'group:nope'"):
        runtime_with({"deny": ["group:nope"]})


def test_a_user_group_can_be_referenced():
    for key in ("review", "group:review"):
        plugin = PolicyPlugin({"groups": {key: ["read"]}, "allow": ["group:review"]})
        assert plugin.config.group_table() == {"group:review": ["read"]}
        assert allowed(plugin, "read")
        assert not allowed(plugin, "write")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"profile": "nope"}, "tools.profile: unknown profile 'nope'"),
        ({"profiles": {"x": {"extends": "nope"}}}, "tools.profiles.x.extends: unknown profile"),
        ({"by_agent": {"a": {"profile": "nope"}}}, "tools.by_agent.a.profile: unknown profile"),
        ({"profiles": {"coding": {}}}, "'coding' is a built-in profile"),
        ({"profiles": {"full": {}}}, "'full' is a built-in profile"),
        ({"groups": {"fs": ["read"]}}, "group:fs is a built-in group"),
        ({"groups": {"x": ["read"], "group:x": ["edit"]}}, "group:x is defined twice"),
        ({"groups": {"a*": ["read"]}}, "not a valid group name"),
        ({"groups": {"": ["read"]}}, "not a valid group name"),
        ({"groups": {"a": ["group:b"], "b": ["group:a"]}}, "cycle"),
        ({"groups": {"a": ["group:a"]}}, "cycle"),
        ({"profiles": {"x": {"extends": "y"}, "y": {"extends": "x"}}}, "cycle"),
        ({"by_sender": {"bob": {}}}, "sender key 'bob' must be"),
        ({"by_sender": {"id:": {}}}, "sender key 'id:' must be"),
        ({"by_sender": {"email:a@b": {}}}, "sender key 'email:a@b' must be"),
        ({"elevated": {"allow_from": ["bob"]}}, "sender key 'bob' must be"),
        ({"by_agent": {"a": {"also_allow": ["x"]}}}, "also_allow is only accepted in [tools]"),
        ({"by_sender": {"*": {"also_allow": ["x"]}}}, "can only narrow"),
        ({"deny": [""]}, "non-empty"),
        ({"deny": ["a\nb"]}, "control characters"),
        ({"by_agent": {"": {}}}, "non-empty"),
    ],
)
def test_bad_config_is_rejected_with_a_clear_message(data, message):
    with pytest.raises(ValidationError) as info:
        PolicyConfig.model_validate(data)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "data",
    [
        {"allow": "exec"},
        {"deny": [3]},
        {"profile": 1},
        {"elevated": {"enabled": "yes"}},
        {"elevated": {"enabled": 1}},
        {"groups": {"x": "read"}},
        {"by_sender": {"*": []}},
    ],
)
def test_wrong_types_are_rejected(data):
    with pytest.raises(ValidationError):
        PolicyConfig.model_validate(data)


# -- odd tool names -------------------------------------------------------------------------------

ODD_NAMES = [
    "fs.read",
    "fsXread",
    "a/b",
    "a b",
    "wêb_fétch",
    "工具",
    "🔧",
    "[abc]",
    "a",
    "(.*)",
    "x+y?",
    "back\\slash",
    "dollar$",
    "^caret",
    "pipe|or",
    'quo"te',
]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_odd_tool_names_never_crash(name):
    plugin = PolicyPlugin(
        {
            "allow": [name, "*"],
            "deny": [f"{name}-no"],
            "by_agent": {name: {"deny": [name]}},
            "by_sender": {f"id:{name}": {"deny": [name]}},
        }
    )
    assert allowed(plugin, name)
    assert not allowed(plugin, f"{name}-no")
    key = name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name, ensure_ascii=False)
    assert f"tools.by_agent.{key}.deny (matches " in reason(plugin, name, agent_id=name)
    assert not allowed(plugin, name, sender=Sender(name))
    assert plugin.tool_visible(spec(name), Sender(name), None, "agent") is False
    assert [v.tool for v in plugin.explain(tools=[name])] == [name]


@pytest.mark.parametrize(
    ("pattern", "name", "matches"),
    [
        ("fs.read", "fsXread", False),
        ("fs.read", "fs.read", True),
        ("fs.*", "fs.read", True),
        ("fs.*", "fsXread", False),
        ("a/b*", "a/bc", True),
        ("a/b*", "a\\bc", False),
        ("[abc]", "a", False),
        ("[abc]", "[abc]", True),
        ("(.*)", "anything", False),
        ("x+y?", "xxy", False),
        ("x+y?", "x+y?", True),
        ("*ép*", "wêb_épée", True),
        ("a*b", "a.x/ b", True),
        ("*", "a b/c.d", True),
        ("pre*", "PREfix", False),  # case-sensitive
        ("exact", "Exact", False),
    ],
)
def test_only_star_is_special_in_patterns(pattern, name, matches):
    plugin = PolicyPlugin({"deny": [pattern]})
    assert allowed(plugin, name) is not matches


_names = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=20
).filter(str.isprintable)


@settings(max_examples=150)
@given(name=_names, other=_names)
def test_pattern_matching_property(name, other):
    literal = name.replace("*", "")
    if not literal or literal.startswith("group:"):
        return  # empty, or a group reference: not a literal tool name (groups are tested apart)
    plugin = PolicyPlugin({"deny": [literal]})
    assert not allowed(plugin, literal)
    assert allowed(plugin, other) is (other != literal)
    prefix = PolicyPlugin({"deny": [literal + "*"]})
    assert not allowed(prefix, literal + other)
    assert allowed(prefix, other) is (not other.startswith(literal))


# -- profiles -------------------------------------------------------------------------------------


def test_no_config_is_profile_full_and_allows_everything():
    plugin = PolicyPlugin()
    for name in [*SIDE_EFFECT_TOOLS, "read", "anything", "custom_tool"]:
        assert allowed(plugin, name)
    assert allowed(plugin, "mine", "side_effect")
    assert verdict(plugin, "exec").decided_by == "tools.profile"


def test_profile_minimal():
    plugin = PolicyPlugin({"profile": "minimal"})
    assert allowed(plugin, "session_status")
    for name in ("read", "exec", "message", "web_search", "sessions_list"):
        assert not allowed(plugin, name)
    assert reason(plugin, "read") == (
        "Tool 'read' denied by policy: tools.profile (profile 'minimal' does not include 'read')"
    )


def test_profile_coding():
    plugin = PolicyPlugin({"profile": "coding"})
    granted = ["group:fs", "group:runtime", "group:sessions", "group:memory", "group:web"]
    for group in granted:
        for name in BUILTIN_GROUPS[group]:
            assert allowed(plugin, name), name
    assert allowed(plugin, "image")
    for name in ("message", "cron", "gateway", "browser", "canvas", "nodes", "custom"):
        assert not allowed(plugin, name), name


def test_profile_messaging():
    plugin = PolicyPlugin({"profile": "messaging"})
    for name in ("message", "sessions_list", "sessions_history", "sessions_send", "session_status"):
        assert allowed(plugin, name), name
    for name in ("exec", "read", "sessions_spawn", "web_fetch", "cron"):
        assert not allowed(plugin, name), name


def test_user_profile_extends_and_narrows():
    plugin = PolicyPlugin(
        {
            "profile": "reviewer",
            "profiles": {
                "reviewer": {"extends": "coding", "deny": ["write", "edit", "apply_patch"]}
            },
        }
    )
    assert allowed(plugin, "read")
    assert allowed(plugin, "exec")
    assert not allowed(plugin, "message")
    assert "tools.profiles.reviewer.deny (matches 'write')" in reason(plugin, "write")
    assert "tools.profiles.reviewer.extends (profile 'coding'" in reason(plugin, "message")


def test_user_profile_allow_and_also_allow():
    plugin = PolicyPlugin(
        {
            "profile": "ops",
            "profiles": {"ops": {"allow": ["read", "exec"], "also_allow": ["message"]}},
        }
    )
    assert allowed(plugin, "read")
    assert allowed(plugin, "exec")
    assert allowed(plugin, "message")
    assert "tools.profiles.ops.allow" in reason(plugin, "write")


def test_user_profile_chain():
    plugin = PolicyPlugin(
        {
            "profile": "b",
            "profiles": {"a": {"extends": "coding", "deny": ["exec"]}, "b": {"extends": "a"}},
        }
    )
    assert allowed(plugin, "read")
    assert "tools.profiles.a.deny" in reason(plugin, "exec")


def test_user_profile_wildcard_does_not_grant_side_effect():
    plugin = PolicyPlugin({"profile": "all", "profiles": {"all": {"allow": ["*"]}}})
    assert allowed(plugin, "read")
    assert not allowed(plugin, "exec")
    assert "tools.profiles.all.allow" in reason(plugin, "exec")


# -- allow / deny / also_allow --------------------------------------------------------------------


def test_deny_wins_over_allow():
    plugin = PolicyPlugin({"allow": ["exec", "read"], "deny": ["exec"]})
    assert allowed(plugin, "read")
    assert reason(plugin, "exec") == "Tool 'exec' denied by policy: tools.deny (matches 'exec')"


def test_deny_group_wins_over_allow_name():
    plugin = PolicyPlugin({"allow": ["exec"], "deny": ["group:runtime"]})
    assert "tools.deny (matches 'group:runtime')" in reason(plugin, "exec")


def test_deny_wildcard_wins_and_applies_to_side_effect_tools():
    plugin = PolicyPlugin({"allow": ["exec", "read"], "deny": ["*"]})
    assert not allowed(plugin, "exec")
    assert not allowed(plugin, "read")
    assert "matches the wildcard '*'" in reason(plugin, "exec")


def test_deny_wins_over_also_allow():
    plugin = PolicyPlugin({"profile": "minimal", "also_allow": ["exec"], "deny": ["exec"]})
    assert "tools.deny" in reason(plugin, "exec")


def test_empty_allow_means_everything_the_profile_gives():
    plain = PolicyPlugin({"profile": "coding"})
    empty = PolicyPlugin({"profile": "coding", "allow": []})
    for name in [*SIDE_EFFECT_TOOLS, "read", "web_fetch", "custom", "image"]:
        assert allowed(plain, name) is allowed(empty, name), name


def test_allow_narrows_the_profile_and_cannot_widen_it():
    plugin = PolicyPlugin({"profile": "coding", "allow": ["read", "exec", "message"]})
    assert allowed(plugin, "read")
    assert allowed(plugin, "exec")
    assert not allowed(plugin, "write")
    assert "tools.allow ('write' is not in the allow list)" in reason(plugin, "write")
    # message is named in allow but the profile does not give it: allow only narrows
    assert "tools.profile (profile 'coding' does not include 'message')" in reason(
        plugin, "message"
    )


def test_allow_under_full_is_only_these():
    plugin = PolicyPlugin({"allow": ["read", "group:web"]})
    assert allowed(plugin, "read")
    assert allowed(plugin, "web_fetch")
    assert not allowed(plugin, "write")
    assert not allowed(plugin, "anything")


def test_also_allow_extends_the_profile():
    plugin = PolicyPlugin({"profile": "minimal", "also_allow": ["read", "group:web", "exec"]})
    assert allowed(plugin, "session_status")
    assert allowed(plugin, "read")
    assert allowed(plugin, "web_search")
    assert allowed(plugin, "exec")
    assert not allowed(plugin, "write")
    assert verdict(plugin, "read").decided_by == "tools.also_allow"


def test_also_allow_adds_beyond_a_narrowing_allow():
    plugin = PolicyPlugin({"profile": "coding", "allow": ["read"], "also_allow": ["message"]})
    assert allowed(plugin, "read")
    assert allowed(plugin, "message")
    assert not allowed(plugin, "exec")


def test_also_allow_wildcard_does_not_grant_side_effect_tools():
    plugin = PolicyPlugin({"profile": "minimal", "also_allow": ["*"]})
    assert allowed(plugin, "read")
    assert allowed(plugin, "custom")
    assert not allowed(plugin, "exec")
    assert not allowed(plugin, "mine", "side_effect")


# -- wildcards and side effects -------------------------------------------------------------------


def test_wildcard_never_grants_a_side_effect_tool():
    plugin = PolicyPlugin({"allow": ["*"]})
    assert allowed(plugin, "read")
    assert allowed(plugin, "custom")
    for name in SIDE_EFFECT_TOOLS:
        assert not allowed(plugin, name), name
    text = reason(plugin, "exec")
    assert text.startswith("Tool 'exec' denied by policy: tools.allow (")
    assert "side effects" in text and "wildcard" in text


def test_partial_wildcard_does_not_grant_side_effect_tools():
    plugin = PolicyPlugin({"allow": ["ex*", "sessions_*"]})
    assert not allowed(plugin, "exec")
    assert allowed(plugin, "sessions_list")
    assert not allowed(plugin, "sessions_send")
    assert not allowed(plugin, "sessions_spawn")


def test_spec_tag_side_effect_counts_for_unknown_names():
    plugin = PolicyPlugin({"allow": ["*"]})
    assert allowed(plugin, "deploy")
    assert not allowed(plugin, "deploy", "side_effect")
    assert not allowed(plugin, "read", "side_effect")  # union with the spec's tags


def test_well_known_side_effect_tools_count_without_a_spec():
    plugin = PolicyPlugin({"allow": ["*"]})
    assert check(plugin, "exec", with_spec=False) is not None
    assert check(plugin, "read", with_spec=False) is None
    # a spec that says read_only does not take the well-known side effect away
    assert not allowed(plugin, "exec", "read_only")


def test_named_tool_grants_a_side_effect_tool():
    plugin = PolicyPlugin({"allow": ["*", "exec"]})
    assert allowed(plugin, "exec")
    assert not allowed(plugin, "write")
    assert allowed(PolicyPlugin({"allow": ["*", "deploy"]}), "deploy", "side_effect")


def test_named_group_grants_a_side_effect_tool():
    plugin = PolicyPlugin({"allow": ["*", "group:runtime"]})
    for name in ("exec", "process", "code_execution"):
        assert allowed(plugin, name)
    assert not allowed(plugin, "write")


def test_user_group_grants_named_members_but_not_wildcard_members():
    plugin = PolicyPlugin(
        {
            "groups": {"ship": ["deploy", "publish*", "group:fs"]},
            "allow": ["group:ship"],
        }
    )
    assert allowed(plugin, "deploy", "side_effect")
    assert allowed(plugin, "write")  # through the nested built-in group
    assert allowed(plugin, "publish_docs")
    assert not allowed(plugin, "publish_pkg", "side_effect")
    assert "matches 'group:ship' (wildcard 'publish*')" in reason(
        plugin, "publish_pkg", "side_effect"
    )
    assert not allowed(plugin, "exec")


def test_full_profile_is_not_a_wildcard():
    plugin = PolicyPlugin({"profile": "full"})
    assert allowed(plugin, "exec")
    assert allowed(plugin, "deploy", "side_effect")


# -- by_agent -------------------------------------------------------------------------------------


def test_by_agent_narrows():
    plugin = PolicyPlugin({"by_agent": {"helper": {"deny": ["exec"]}}})
    assert not allowed(plugin, "exec", agent_id="helper")
    assert allowed(plugin, "exec", agent_id="main")
    assert allowed(plugin, "exec")
    assert "tools.by_agent.helper.deny (matches 'exec')" in reason(
        plugin, "exec", agent_id="helper"
    )


def test_by_agent_allow_narrows():
    plugin = PolicyPlugin({"by_agent": {"helper": {"allow": ["read"]}}})
    assert allowed(plugin, "read", agent_id="helper")
    assert "tools.by_agent.helper.allow" in reason(plugin, "write", agent_id="helper")


def test_by_agent_profile_narrows():
    plugin = PolicyPlugin({"profile": "coding", "by_agent": {"helper": {"profile": "minimal"}}})
    assert allowed(plugin, "session_status", agent_id="helper")
    assert "tools.by_agent.helper.profile" in reason(plugin, "read", agent_id="helper")
    assert allowed(plugin, "read", agent_id="other")


def test_by_agent_cannot_grant_what_tools_denies():
    plugin = PolicyPlugin(
        {
            "profile": "minimal",
            "deny": ["write"],
            "by_agent": {"helper": {"allow": ["exec", "write"], "profile": "full"}},
        }
    )
    assert "tools.profile" in reason(plugin, "exec", agent_id="helper")
    assert "tools.deny" in reason(plugin, "write", agent_id="helper")


def test_by_agent_wildcard_does_not_keep_a_side_effect_tool():
    plugin = PolicyPlugin({"by_agent": {"helper": {"allow": ["*"]}}})
    assert allowed(plugin, "read", agent_id="helper")
    assert not allowed(plugin, "exec", agent_id="helper")


def test_by_agent_id_with_odd_characters_is_quoted_in_the_path():
    plugin = PolicyPlugin({"by_agent": {"team.a/b": {"deny": ["read"]}}})
    assert 'tools.by_agent."team.a/b".deny' in reason(plugin, "read", agent_id="team.a/b")


# -- by_sender ------------------------------------------------------------------------------------

ALICE = Sender("alice", name="Alice", channel="slack", roles=("dev", "ops"))
BOB = Sender("bob", name="Bob", channel="whatsapp", roles=("guest",))


@pytest.mark.parametrize(
    ("key", "who"),
    [
        ("id:bob", BOB),
        ("name:Bob", BOB),
        ("role:guest", BOB),
        ("channel:whatsapp", BOB),
        ("*", BOB),
    ],
)
def test_by_sender_each_key_kind_narrows(key, who):
    plugin = PolicyPlugin({"by_sender": {key: {"deny": ["exec"]}}})
    text = reason(plugin, "exec", sender=who)
    assert f'tools.by_sender."{key}".deny' in text
    assert allowed(plugin, "read", sender=who)
    # no sender: only "*" applies (a missing sender never widens the policy)
    assert allowed(plugin, "exec") is (key != "*")
    if key != "*":
        assert allowed(plugin, "exec", sender=ALICE)
    else:
        assert not allowed(plugin, "exec", sender=ALICE)


def test_block_reason_names_the_config_path():
    plugin = PolicyPlugin({"by_sender": {"id:bob": {"deny": ["group:runtime"]}}})
    assert reason(plugin, "exec", sender="bob") == (
        "Tool 'exec' denied by policy: tools.by_sender.\"id:bob\".deny (matches 'group:runtime')"
    )


def test_by_sender_several_keys_all_apply():
    plugin = PolicyPlugin(
        {
            "by_sender": {
                "*": {"deny": ["cron"]},
                "channel:slack": {"deny": ["message"]},
                "role:ops": {"deny": ["exec"]},
                "role:dev": {"deny": ["write"]},
                "name:Alice": {"deny": ["edit"]},
                "id:alice": {"allow": ["*", "group:fs", "group:runtime", "message", "cron"]},
            }
        }
    )
    assert 'tools.by_sender."*".deny' in reason(plugin, "cron", sender=ALICE)
    assert 'tools.by_sender."channel:slack".deny' in reason(plugin, "message", sender=ALICE)
    assert 'tools.by_sender."role:ops".deny' in reason(plugin, "exec", sender=ALICE)
    assert 'tools.by_sender."role:dev".deny' in reason(plugin, "write", sender=ALICE)
    assert 'tools.by_sender."name:Alice".deny' in reason(plugin, "edit", sender=ALICE)
    assert 'tools.by_sender."id:alice".allow' in reason(plugin, "browser", sender=ALICE)
    assert allowed(plugin, "read", sender=ALICE)
    assert allowed(plugin, "apply_patch", sender=ALICE)
    assert allowed(plugin, "exec", sender=BOB)
    assert not allowed(plugin, "cron", sender=BOB)


def test_by_sender_cannot_grant_what_tools_denies():
    plugin = PolicyPlugin(
        {"deny": ["exec"], "by_sender": {"id:owner": {"allow": ["exec"], "profile": "full"}}}
    )
    assert "tools.deny" in reason(plugin, "exec", sender="owner")


def test_by_sender_with_agent_both_narrow():
    plugin = PolicyPlugin(
        {"by_agent": {"a": {"deny": ["read"]}}, "by_sender": {"id:bob": {"deny": ["write"]}}}
    )
    assert not allowed(plugin, "read", sender="bob", agent_id="a")
    assert not allowed(plugin, "write", sender="bob", agent_id="a")
    assert allowed(plugin, "edit", sender="bob", agent_id="a")
    assert allowed(plugin, "read", sender="bob", agent_id="b")


def test_sender_without_name_or_channel_matches_id_and_roles_only():
    plugin = PolicyPlugin(
        {"by_sender": {"name:x": {"deny": ["read"]}, "role:r": {"deny": ["write"]}}}
    )
    who = Sender("x", roles=("r",))
    assert allowed(plugin, "read", sender=who)  # "name:x" is not "id:x"
    assert not allowed(plugin, "write", sender=who)


# -- elevated -------------------------------------------------------------------------------------


def test_elevated_is_off_by_default():
    plugin = PolicyPlugin()
    text = reason(plugin, "sudo", "elevated", sender="alice")
    assert "tools.elevated.enabled" in text
    assert allowed(plugin, "plain", sender="alice")


def test_elevated_enabled_without_allow_from_is_still_denied():
    plugin = PolicyPlugin({"elevated": {"enabled": True}})
    assert "tools.elevated.allow_from" in reason(plugin, "sudo", "elevated", sender="alice")


def test_elevated_allow_from_without_enabled_is_still_denied():
    plugin = PolicyPlugin({"elevated": {"allow_from": ["id:alice"]}})
    assert "tools.elevated.enabled" in reason(plugin, "sudo", "elevated", sender="alice")


def test_elevated_enabled_and_allow_from_allows_matching_senders():
    plugin = PolicyPlugin({"elevated": {"enabled": True, "allow_from": ["id:alice", "role:admin"]}})
    assert allowed(plugin, "sudo", "elevated", sender="alice")
    assert allowed(plugin, "sudo", "elevated", sender=Sender("carol", roles=("admin",)))
    assert "tools.elevated.allow_from (sender 'bob'" in reason(
        plugin, "sudo", "elevated", sender="bob"
    )
    assert "no sender" in reason(plugin, "sudo", "elevated")


def test_elevated_star_needs_a_sender():
    plugin = PolicyPlugin({"elevated": {"enabled": True, "allow_from": ["*"]}})
    assert allowed(plugin, "sudo", "elevated", sender="anyone")
    assert not allowed(plugin, "sudo", "elevated")


def test_elevated_only_narrows():
    plugin = PolicyPlugin(
        {"deny": ["sudo"], "elevated": {"enabled": True, "allow_from": ["id:alice"]}}
    )
    assert "tools.deny" in reason(plugin, "sudo", "elevated", sender="alice")


# -- external origin ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXTERNAL_BLOCKED_TOOLS))
def test_external_origin_blocks_the_hard_coded_set_whatever_the_config(name):
    permissive = [
        PolicyPlugin(),
        PolicyPlugin({"profile": "full"}),
        PolicyPlugin({"allow": [name]}),
        PolicyPlugin({"profile": "minimal", "also_allow": [name]}),
        PolicyPlugin({"allow": ["group:automation", "group:sessions", "group:nodes", name]}),
        PolicyPlugin(
            {
                "by_sender": {"id:owner": {"allow": [name]}},
                "elevated": {"enabled": True, "allow_from": ["*"]},
            }
        ),
    ]
    for plugin in permissive:
        assert allowed(plugin, name, sender="owner")
        text = reason(plugin, name, origin="external", sender="owner")
        assert f"denied by policy: {EXTERNAL}" in text
        assert check(plugin, name, origin="external", with_spec=False) is not None


def test_external_origin_blocks_internal_tagged_tools():
    plugin = PolicyPlugin({"allow": ["secret_tool"], "also_allow": ["secret_tool"]})
    assert allowed(plugin, "secret_tool", "internal")
    text = reason(plugin, "secret_tool", "internal", origin="external")
    assert EXTERNAL in text and "internal" in text
    assert allowed(plugin, "secret_tool", origin="external")  # not tagged this time


def test_external_origin_allows_ordinary_tools():
    plugin = PolicyPlugin()
    assert allowed(plugin, "read", origin="external")
    assert allowed(plugin, "exec", origin="external")


def test_external_block_decides_before_other_denies():
    plugin = PolicyPlugin({"deny": ["cron"]})
    result = verdict(plugin, "cron", origin="external")
    assert result.decided_by == EXTERNAL
    assert [s.effect for s in result.steps[:2]] == ["deny", "deny"]


# -- tool_visible ---------------------------------------------------------------------------------


MATRIX_CONFIG = {
    "profile": "coding",
    "also_allow": ["message", "sudo", "secret"],
    "deny": ["web_fetch"],
    "groups": {"ship": ["deploy"]},
    "by_agent": {"helper": {"allow": ["*", "group:fs"]}},
    "by_sender": {
        "*": {"deny": ["sessions_spawn"]},
        "role:guest": {"profile": "messaging"},
        "id:bob": {"deny": ["group:runtime"]},
        "channel:slack": {"allow": ["*", "group:fs", "group:runtime", "message", "sudo"]},
    },
    "elevated": {"enabled": True, "allow_from": ["id:alice"]},
}
MATRIX_TOOLS = [
    spec("read"),
    spec("write", "side_effect"),
    spec("exec"),
    spec("message"),
    spec("web_fetch"),
    spec("web_search", "read_only"),
    spec("sessions_spawn"),
    spec("sessions_list"),
    spec("cron"),
    spec("deploy", "side_effect"),
    spec("sudo", "elevated", "side_effect"),
    spec("secret", "internal"),
    spec("odd.tool/ü"),
]
MATRIX_SENDERS = [
    None,
    ALICE,
    BOB,
    Sender("carol", channel="slack"),
    Sender("dan", roles=("guest",)),
]


def test_tool_visible_agrees_with_before_tool_call():
    plugin = PolicyPlugin(MATRIX_CONFIG)
    seen = {True: 0, False: 0}
    for tool in MATRIX_TOOLS:
        for who in MATRIX_SENDERS:
            for agent in (None, "helper", "main"):
                for origin in ("agent", "external"):
                    call = ToolCall(
                        name=tool.name, sender=who, agent_id=agent, origin=origin, spec=tool
                    )
                    blocked = plugin.before_tool_call(call) is not None
                    visible = plugin.tool_visible(tool, who, agent, origin)
                    assert visible in (None, False)
                    assert (visible is False) is blocked, (tool.name, who, agent, origin)
                    (explained,) = plugin.explain(
                        sender=who, agent_id=agent, origin=origin, tools=[tool]
                    )
                    assert explained.allowed is not blocked
                    seen[blocked] += 1
    assert seen[True] > 20 and seen[False] > 20  # the matrix exercises both outcomes


def test_tool_visible_returns_none_when_allowed():
    plugin = PolicyPlugin({"deny": ["exec"]})
    assert plugin.tool_visible(spec("read"), None, None, "agent") is None
    assert plugin.tool_visible(spec("exec"), None, None, "agent") is False


# -- explain --------------------------------------------------------------------------------------


def test_explain_orders_the_steps():
    plugin = PolicyPlugin(
        {
            "by_agent": {"a": {}},
            "by_sender": {
                "id:alice": {},
                "name:Alice": {},
                "role:ops": {},
                "role:dev": {},
                "channel:slack": {},
                "*": {},
            },
            "elevated": {"enabled": True, "allow_from": ["role:ops"]},
        }
    )
    result = verdict(plugin, spec("sudo", "elevated"), sender=ALICE, agent_id="a")
    assert result.allowed
    assert [(s.step, s.rule) for s in result.steps] == [
        ("origin", EXTERNAL),
        ("tools", "tools.profile"),
        ("agent", "tools.by_agent.a"),
        ("sender", 'tools.by_sender."*"'),
        ("sender", 'tools.by_sender."channel:slack"'),
        ("sender", 'tools.by_sender."role:dev"'),
        ("sender", 'tools.by_sender."role:ops"'),
        ("sender", 'tools.by_sender."name:Alice"'),
        ("sender", 'tools.by_sender."id:alice"'),
        ("elevated", "tools.elevated.allow_from"),
    ]
    assert all(s.effect == "allow" for s in result.steps)
    assert result.steps[-1].detail == "matches 'role:ops'"


def test_explain_decided_by_is_the_first_deny():
    plugin = PolicyPlugin(
        {
            "deny": ["exec"],
            "by_agent": {"a": {"deny": ["exec"]}},
            "by_sender": {"id:bob": {"deny": ["exec"]}},
        }
    )
    result = verdict(plugin, "exec", sender="bob", agent_id="a")
    assert not result.allowed
    assert result.decided_by == "tools.deny"
    assert [s.effect for s in result.steps] == ["allow", "deny", "deny", "deny"]
    assert [s.rule for s in result.steps[1:]] == [
        "tools.deny",
        "tools.by_agent.a.deny",
        'tools.by_sender."id:bob".deny',
    ]
    assert result.reason == "Tool 'exec' denied by policy: tools.deny (matches 'exec')"


def test_explain_steps_are_named_tuples():
    (result,) = PolicyPlugin().explain(tools=["read"])
    step = result.steps[0]
    assert isinstance(step, PolicyStep)
    name, rule, effect, _detail = step
    assert (name, rule, effect) == ("origin", EXTERNAL, "allow")


def test_explain_default_tool_list():
    plugin = PolicyPlugin(
        {"groups": {"ship": ["deploy", "pub*"]}, "deny": ["legacy_tool", "old_*"]}
    )
    names = [v.tool for v in plugin.explain()]
    assert names == sorted(names)
    assert names == plugin.known_tools()
    for members in BUILTIN_GROUPS.values():
        assert set(members) <= set(names)
    assert {"deploy", "legacy_tool", "image", "whatsapp_login"} <= set(names)
    assert not any("*" in n or n.startswith("group:") for n in names)


def test_explain_with_specs_uses_their_tags():
    plugin = PolicyPlugin({"allow": ["*"]})
    plain, tagged = plugin.explain(tools=["deploy", spec("deploy", "side_effect")])
    assert plain.allowed and not tagged.allowed
    results = plugin.explain_specs([spec("a"), spec("b", "side_effect")])
    assert [(r.tool, r.allowed) for r in results] == [("a", True), ("b", False)]


def test_explain_accepts_sender_forms_and_checks_origin():
    plugin = PolicyPlugin({"by_sender": {"id:bob": {"deny": ["read"]}}})
    assert not verdict(plugin, "read", sender="bob").allowed
    assert not verdict(plugin, "read", sender={"id": "bob"}).allowed
    assert not verdict(plugin, "read", sender=Sender("bob")).allowed
    assert verdict(plugin, "read", sender="alice").allowed
    with pytest.raises(ValueError, match="origin"):
        plugin.explain(origin="outside")
    with pytest.raises(TypeError):
        plugin.explain(tools=[3])


def test_explain_to_dict_is_json_ready():
    plugin = PolicyPlugin({"deny": ["exec"]})
    data = [v.to_dict() for v in plugin.explain(tools=["exec", "read"])]
    text = json.dumps(data)
    assert json.loads(text)[0] == {
        "tool": "exec",
        "allowed": False,
        "decided_by": "tools.deny",
        "detail": "matches 'exec'",
        "reason": "Tool 'exec' denied by policy: tools.deny (matches 'exec')",
        "steps": [
            {"step": "origin", "rule": EXTERNAL, "effect": "allow", "detail": "origin is 'agent'"},
            {"step": "tools", "rule": "tools.deny", "effect": "deny", "detail": "matches 'exec'"},
        ],
    }
    assert json.loads(text)[1]["reason"] is None


# -- cache and concurrency ------------------------------------------------------------------------


def test_cache_is_bounded_and_stays_correct():
    plugin = PolicyPlugin({"deny": ["tool_7*"]})
    plugin.cache_size = 16
    for i in range(200):
        assert allowed(plugin, f"tool_{i}") is (not str(i).startswith("7"))
        assert len(plugin._cache) <= 16
    for i in range(200):
        assert allowed(plugin, f"tool_{i}") is (not str(i).startswith("7"))


def test_cache_keys_on_tags_sender_agent_and_origin():
    plugin = PolicyPlugin(
        {
            "allow": ["*"],
            "by_agent": {"a": {"deny": ["read"]}},
            "by_sender": {"id:bob": {"deny": ["read"]}},
        }
    )
    assert allowed(plugin, "deploy")
    assert not allowed(plugin, "deploy", "side_effect")
    assert allowed(plugin, "read")
    assert not allowed(plugin, "read", agent_id="a")
    assert not allowed(plugin, "read", sender="bob")
    assert allowed(plugin, "read", sender=Sender("bob2"))
    assert allowed(plugin, "sessions_list", origin="external")
    assert allowed(plugin, "read", "internal")
    assert not allowed(plugin, "read", "internal", origin="external")


def test_unhashable_tags_or_roles_still_decide():
    plugin = PolicyPlugin({"allow": ["*"], "by_sender": {"role:x": {"deny": ["read"]}}})
    odd_spec = ToolSpec("deploy", tags={"side_effect"})
    call = ToolCall(name="deploy", spec=odd_spec)
    assert plugin.before_tool_call(call) is not None
    assert plugin.tool_visible(odd_spec, None, None, "agent") is False
    odd_sender = Sender("s", roles=["x"])
    assert plugin.before_tool_call(ToolCall(name="read", sender=odd_sender)) is not None


def test_concurrent_calls_agree():
    plugin = PolicyPlugin({"deny": ["t_1*"], "by_sender": {"id:bob": {"deny": ["t_2*"]}}})
    plugin.cache_size = 64
    errors: list[str] = []

    def work(seed: int) -> None:
        for i in range(400):
            name = f"t_{(i * 7 + seed) % 300}"
            who = "bob" if i % 2 else "alice"
            expected = not name.startswith("t_1") and not (who == "bob" and name.startswith("t_2"))
            if allowed(plugin, name, sender=who) is not expected:
                errors.append(f"{name} {who}")

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(plugin._cache) <= 64


# -- through a Runtime ----------------------------------------------------------------------------


def make_runtime(config: dict[str, object], **kw: object) -> tuple[Runtime, list[str]]:
    ran: list[str] = []
    rt = Runtime(plugins=[PolicyPlugin(config)], load_entrypoints=False, **kw)

    def exec(cmd: str) -> str:
        ran.append("exec")
        return f"ran {cmd}"

    def read(path: str) -> str:
        ran.append("read")
        return f"read {path}"

    def cron(spec: str) -> str:
        ran.append("cron")
        return "scheduled"

    def sudo(cmd: str) -> str:
        ran.append("sudo")
        return "root"

    rt.add_tool(exec)
    rt.add_tool(read)
    rt.add_tool(cron)
    rt.add_tool(sudo, tags=["elevated", "side_effect"])
    return rt, ran


def test_runtime_blocks_with_the_config_path():
    rt, ran = make_runtime({"by_sender": {"id:bob": {"deny": ["exec"]}}})
    outcome = rt.call({"name": "exec", "params": {"cmd": "ls"}, "sender": "bob"})
    assert outcome.status == "blocked"
    assert outcome.reason == (
        "Tool 'exec' denied by policy: tools.by_sender.\"id:bob\".deny (matches 'exec')"
    )
    assert outcome.content == outcome.reason
    assert outcome.blocked_by == "policy"
    assert ran == []
    outcome = rt.call({"name": "exec", "params": {"cmd": "ls"}, "sender": "alice"})
    assert outcome.status == "ok" and outcome.value == "ran ls"
    assert ran == ["exec"]


def test_runtime_external_origin_and_elevated():
    rt, ran = make_runtime(
        {
            "allow": ["cron", "read", "sudo"],
            "elevated": {"enabled": True, "allow_from": ["id:root"]},
        }
    )
    outcome = rt.call({"name": "cron", "params": {"spec": "* * * * *"}, "origin": "external"})
    assert outcome.status == "blocked"
    assert EXTERNAL in (outcome.reason or "")
    assert rt.call({"name": "cron", "params": {"spec": "x"}}).status == "ok"
    assert rt.call({"name": "read", "params": {"path": "p"}, "origin": "external"}).status == "ok"
    assert rt.call({"name": "sudo", "params": {"cmd": "x"}, "sender": "bob"}).status == "blocked"
    assert rt.call({"name": "sudo", "params": {"cmd": "x"}, "sender": "root"}).status == "ok"
    assert ran == ["cron", "read", "sudo"]


def test_runtime_visible_tools_match_calls():
    rt, _ = make_runtime(
        {
            "profile": "coding",
            "also_allow": ["cron", "sudo"],
            "by_sender": {"role:guest": {"allow": ["read"]}},
            "elevated": {"enabled": True, "allow_from": ["id:root"]},
        }
    )
    params = {
        "exec": {"cmd": "x"},
        "read": {"path": "x"},
        "cron": {"spec": "x"},
        "sudo": {"cmd": "x"},
    }
    outcomes = set()
    for who in (None, "root", {"id": "g", "roles": ["guest"]}):
        for origin in ("agent", "external"):
            shown = {s.name for s in rt.visible_tools(sender=who, origin=origin)}
            for name, args in params.items():
                outcome = rt.call({"name": name, "params": args, "sender": who, "origin": origin})
                assert (outcome.status == "ok") is (name in shown), (name, who, origin)
                outcomes.add(outcome.status)
    assert outcomes == {"ok", "blocked"}


def test_runtime_emits_policy_denied_event():
    events: list[tuple[str, dict[str, object]]] = []

    class Sink:
        @hookimpl
        def on_event(self, event):
            events.append((event.event, dict(event.data)))

    rt, _ = make_runtime({"deny": ["exec"]})
    rt.register(Sink())
    rt.call({"name": "exec", "params": {"cmd": "x"}})
    denied = [data for name, data in events if name == "policy.denied"]
    assert denied == [{"rule": "tools.deny", "detail": "matches 'exec'"}]


def test_runtime_loads_the_built_in_from_the_tools_table(tmp_path):
    path = tmp_path / "toolhooks.toml"
    path.write_text(
        '[plugins]\nonly = ["policy"]\n\n'
        '[tools]\nprofile = "coding"\ndeny = ["exec"]\n\n'
        '[tools.by_sender."id:bob"]\ndeny = ["read"]\n'
    )
    rt = Runtime(config=path)
    (info,) = rt.plugins()
    assert (info.name, info.source, info.priority) == ("policy", "built-in", 10_000)
    plugin = rt.get_plugin("policy")
    assert isinstance(plugin, PolicyPlugin)
    assert plugin.config.profile == "coding"
    rt.add_tool(lambda path: path, name="read")
    outcome = rt.call({"name": "read", "params": {"path": "x"}, "sender": "bob"})
    assert outcome.status == "blocked"
    assert outcome.blocked_by == "policy"
    assert 'tools.by_sender."id:bob".deny' in (outcome.reason or "")
    assert rt.call({"name": "read", "params": {"path": "x"}}).status == "ok"


def test_runtime_audit_mode_records_but_does_not_block():
    rt = Runtime(
        config={
            "plugins": {"only": ["policy"], "policy": {"mode": "audit"}},
            "tools": {"deny": ["read"]},
        }
    )
    rt.add_tool(lambda path: path, name="read")
    assert rt.call({"name": "read", "params": {"path": "x"}}).status == "ok"


# -- a missing sender or agent never widens the policy (issue #10 item 6) -------------------------


def test_by_sender_star_binds_a_call_without_a_sender():
    plugin = PolicyPlugin({"by_sender": {"*": {"deny": ["exec"]}, "id:bob": {"deny": ["read"]}}})
    assert reason(plugin, "exec") == (
        "Tool 'exec' denied by policy: tools.by_sender.\"*\".deny (matches 'exec')"
    )
    assert allowed(plugin, "read")  # id:bob binds bob only
    assert not allowed(plugin, "read", sender=BOB)
    assert [step.rule for step in verdict(plugin, "exec").steps if step.step == "sender"] == [
        'tools.by_sender."*".deny'
    ]


def test_by_sender_star_profile_narrows_sender_less_calls_and_hides_tools():
    rt, ran = make_runtime({"by_sender": {"*": {"profile": "minimal"}}})
    outcome = rt.call({"name": "read", "params": {"path": "/etc/passwd"}})
    assert outcome.status == "blocked"
    assert outcome.reason == (
        "Tool 'read' denied by policy: tools.by_sender.\"*\".profile "
        "(profile 'minimal' does not include 'read')"
    )
    assert ran == []
    assert rt.visible_tools() == []
    assert rt.visible_tools(sender="bob") == []


def test_by_agent_star_binds_every_call_with_or_without_an_agent():
    plugin = PolicyPlugin({"by_agent": {"*": {"deny": ["exec"]}, "helper": {"deny": ["read"]}}})
    star = "Tool 'exec' denied by policy: tools.by_agent.\"*\".deny (matches 'exec')"
    assert reason(plugin, "exec") == star
    assert reason(plugin, "exec", agent_id="other") == star
    assert reason(plugin, "exec", agent_id="helper") == star
    assert "tools.by_agent.helper.deny" in reason(plugin, "read", agent_id="helper")
    assert allowed(plugin, "read") and allowed(plugin, "read", agent_id="other")


# -- OpenClaw's aliases: bash is exec, apply-patch is apply_patch (issue #10 item 7) --------------


@pytest.mark.parametrize(("alias", "canonical"), [("bash", "exec"), ("apply-patch", "apply_patch")])
def test_alias_counts_as_its_canonical_tool_in_groups(alias, canonical):
    group = "group:runtime" if canonical == "exec" else "group:fs"
    assert reason(PolicyPlugin({"deny": [group]}), alias) == (
        f"Tool '{alias}' denied by policy: tools.deny (matches '{group}')"
    )
    coding = PolicyPlugin({"profile": "coding"})
    assert allowed(coding, alias)
    assert "profile 'coding' includes it" in verdict(coding, alias).detail
    assert not allowed(PolicyPlugin({"profile": "minimal"}), alias)


@pytest.mark.parametrize(("alias", "canonical"), [("bash", "exec"), ("apply-patch", "apply_patch")])
def test_alias_and_canonical_deny_each_other(alias, canonical):
    assert not allowed(PolicyPlugin({"deny": [canonical]}), alias)
    assert not allowed(PolicyPlugin({"deny": [alias]}), canonical)
    assert not allowed(
        PolicyPlugin({"by_sender": {"id:bob": {"deny": [canonical]}}}), alias, sender=BOB
    )
    assert allowed(PolicyPlugin({"allow": [canonical]}), alias)  # a named grant covers both


@pytest.mark.parametrize("alias", ["bash", "apply-patch"])
def test_alias_is_a_side_effect_tool_a_wildcard_never_grants(alias):
    assert not allowed(PolicyPlugin({"allow": ["*"]}), alias, with_spec=False)
    text = reason(PolicyPlugin({"allow": ["*"]}), alias, with_spec=False)
    assert "has side effects and a wildcard never grants a side_effect tool" in text
    assert not allowed(PolicyPlugin({"also_allow": ["*"], "profile": "minimal"}), alias)


def test_alias_through_a_runtime():
    rt = Runtime(plugins=[PolicyPlugin({"deny": ["group:runtime"]})], load_entrypoints=False)
    ran: list[str] = []

    @rt.tool
    def bash(cmd: str) -> str:
        """Run a shell command."""
        ran.append(cmd)
        return "done"

    outcome = rt.call({"name": "bash", "params": {"cmd": "rm -rf /"}})
    assert outcome.status == "blocked" and outcome.blocked_by == "policy"
    assert outcome.reason == ("Tool 'bash' denied by policy: tools.deny (matches 'group:runtime')")
    assert ran == [] and rt.visible_tools() == []
