"""Four-part versions stay intact wherever a version is written; a host after ``user@`` on a
remote-login command line is an address even where it looks like a version."""

import pytest

from quarry.curation.pii import detect

V = "4.20.1.99"  # a valid public IPv4 address and a four-part version alike
VERSION_CONTEXTS = [
    f"version {V}", f"Version: {V}", f"v{V}", f"__version__ = '{V}'", f'VERSION = "{V}"', f"foo=={V}",
    f"foo>={V}", f"## {V}\n", f"## [{V}] - 2024-05-01\n", f"{V} (2024-05-01)\n", f"* {V} / 2024-05-01",
    f"{V}\n------\n\n- fixed the parser", f"Release {V} fixes the crash.", f"<version>{V}</version>",
    f"implementation 'com.acme:widgets:{V}'", f"image: registry.acme.io/app:{V}",
    f"User-Agent: Mozilla/5.0 AppleWebKit/537.36 Chrome/{V} Safari/537.36",
    f"foo ({V}-1) unstable; urgency=medium", f"pip install foo=={V}", f"Bump foo from 4.20.1.98 to {V}",
    f"upgraded to {V}", f"Added in {V}.", f"since {V}", f"{V}-rc1", f"{V}+build.7", f"{V}.dev0",
    f"npm install pkg@{V}", f'AssemblyVersion("{V}")', f'"Microsoft.Extensions.Http": "{V}",', f"tag: {V}",
    f"[{V}]: https://github.com/a/b/compare/v1...v2", f"- Updated foo to {V}", f"Changes in {V}", f"ver. {V}",
]
REMOTE_HOSTS = [
    "ssh root@52.14.3.7", "scp file.txt deploy@34.201.10.5:/tmp/", "rsync -avz ./ ubuntu@18.222.1.77:/srv/",
    "sftp admin@52.14.3.7", "ssh -i key.pem ec2-user@54.210.33.12 uptime", f"ssh -p 2222 git@{V}",
    "mosh root@45.33.2.9", "ssh-copy-id deploy@52.14.3.7", "ProxyJump bastion@52.14.3.7",
    f"ssh admin@{V} 'uptime'", "rsync -e ssh backup@18.222.1.77:/data ./data",
    "$ sshpass -p \"$PW\" ssh deploy@52.14.3.7",
]
PLAIN_HOSTS = ["resolver.setServers(['4.4.4.4']);", '        [\n            ("2.2.2.2", 1, "success"),\n        ],\n    )\n    assert sock.ip == "2.2.2.2"',
               "HOST = '93.184.216.34'", "connect to 52.14.3.7 now", "server 52.14.3.7:8080", "http://52.14.3.7/api",
               "- 52.14.3.7\n- 52.14.3.8\n", f"nameserver {V}", "allow from 52.14.3.7 to 52.14.3.9", f"ping {V}",
               # an address word compared with it: '==' compares addresses there, it pins no version
               f'assert conn.ip == "{V}"', f"if gateway != '{V}':", f"expect(peer.host).toBe(x) || peer.host === '{V}'"]


def _ips(text: str) -> list[str]:
    return [text[f.start:f.end] for f in detect(text) if f.type == "IP_ADDRESS"]


@pytest.mark.parametrize("text", VERSION_CONTEXTS)
def test_a_version_is_not_an_address(text):
    assert _ips(text) == []


@pytest.mark.parametrize("text", REMOTE_HOSTS + PLAIN_HOSTS)
def test_a_host_is_an_address(text):
    assert _ips(text), text
