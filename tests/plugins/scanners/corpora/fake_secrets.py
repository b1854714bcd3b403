"""Fake credentials in every format ``secrets`` knows, made from a seeded generator.

None of them was ever issued: each is random text in the published shape, with the published
checksum where the format has one (GitHub's and npm's CRC32 tail, a JWT's JSON header). They
are generated rather than written in the repository, so no file holds a string a secret
scanner upstream would flag. Each sample is the way such a value turns up in a tool result: in
a config file, an environment dump, a log line, a JSON document.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import string

ALNUM = string.ascii_letters + string.digits
B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
UPPER32 = string.ascii_uppercase + "234567"
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "_-"


def _b62(number: int) -> str:
    out = ""
    while number:
        number, digit = divmod(number, 62)
        out = B62[digit] + out
    return out.rjust(6, "0")


def _pick(rng: random.Random, alphabet: str, size: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


def _checksummed(rng: random.Random, prefix: str) -> str:
    body = _pick(rng, ALNUM, 30)
    return f"{prefix}{body}{_b62(binascii.crc32(body.encode()))}"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _jwt(rng: random.Random) -> str:
    head = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = {"sub": str(rng.randrange(10**6)), "name": "Test User", "iat": 1700000000}
    body = _b64url(json.dumps(claims).encode())
    return f"{head}.{body}.{_b64url(rng.randbytes(32))}"


def _pem(rng: random.Random, label: str) -> str:
    body = base64.b64encode(rng.randbytes(300)).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----"


def samples(seed: int = 40) -> list[tuple[str, str]]:
    """(kind, text) pairs: ``text`` holds exactly one credential of ``kind``."""
    rng = random.Random(seed)
    aws_id = "AKIA" + _pick(rng, UPPER32, 16)
    aws_secret = _pick(rng, ALNUM + "+/", 40)
    slack = f"xoxb-{rng.randrange(10**11, 10**12)}-{rng.randrange(10**12, 10**13)}-{_pick(rng, ALNUM, 24)}"
    openai_body = _pick(rng, ALNUM, 20) + "T3BlbkFJ" + _pick(rng, ALNUM, 20)
    out = [
        ("aws_access_key_id", f"export AWS_ACCESS_KEY_ID={aws_id}"),
        ("assigned_secret", f"aws_secret_access_key = {aws_secret}"),
        ("aws_access_key_id", f'{{"AccessKeyId": "{"ASIA" + _pick(rng, UPPER32, 16)}", "Expiration": "2026-01-01"}}'),
        ("gcp_api_key", f"GOOGLE_MAPS_KEY: AIza{_pick(rng, URLSAFE, 35)}"),
        ("gcp_oauth_client_secret", f'"client_secret": "GOCSPX-{_pick(rng, URLSAFE, 28)}"'),
        ("gcp_oauth_token", f"Authorization header had ya29.{_pick(rng, URLSAFE, 120)} in it"),
        ("azure_client_secret", f"AZURE_CLIENT_SECRET={_pick(rng, ALNUM, 3)}8Q~{_pick(rng, ALNUM + '_~.-', 34)}"),
        ("azure_storage_key",
         f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={_pick(rng, ALNUM + '+/', 86)}==;EndpointSuffix=core.windows.net"),
        ("azure_sas_token",
         f"https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01&sig={_pick(rng, ALNUM, 43)}%3D"),
        ("github_token", f"git clone https://{_checksummed(rng, 'ghp_')}@github.com/acme/app.git"),
        ("github_token", f"GITHUB_TOKEN={_checksummed(rng, 'gho_')}"),
        ("github_token", f"token: {_checksummed(rng, 'ghs_')}"),
        ("github_fine_grained_token", f"GH_PAT=github_pat_{_pick(rng, ALNUM, 22)}_{_pick(rng, ALNUM, 59)}"),
        ("gitlab_token", f"PRIVATE-TOKEN: glpat-{_pick(rng, URLSAFE, 20)}"),
        ("gitlab_runner_token", f"registration-token GR1348941{_pick(rng, URLSAFE, 20)}"),
        ("slack_token", f"SLACK_BOT_TOKEN={slack}"),
        ("slack_app_token", f"xapp-1-A{_pick(rng, UPPER32, 10)}-{rng.randrange(10**12, 10**13)}-{_pick(rng, HEX, 64)}"),
        ("slack_webhook", f"curl -X POST https://hooks.slack.com/services/T{_pick(rng, UPPER32, 8)}/B{_pick(rng, UPPER32, 10)}/{_pick(rng, ALNUM, 24)}"),
        ("stripe_key", f"stripe.api_key = 'sk_live_{_pick(rng, ALNUM, 24)}'"),
        ("stripe_key", f"STRIPE_RESTRICTED=rk_test_{_pick(rng, ALNUM, 40)}"),
        ("stripe_webhook_secret", f"endpoint secret whsec_{_pick(rng, ALNUM, 32)}"),
        ("openai_key", f"OPENAI_API_KEY=sk-{openai_body}"),
        ("openai_key", f'openai.api_key = "sk-proj-{_pick(rng, URLSAFE, 120)}"'),
        ("anthropic_key", f"ANTHROPIC_API_KEY=sk-ant-api03-{_pick(rng, URLSAFE, 93)}AA"),
        ("npm_token", f"//registry.npmjs.org/:_authToken={_checksummed(rng, 'npm_')}"),
        ("pypi_token", f"password = pypi-AgEIcHlwaS5vcmc{_pick(rng, URLSAFE, 120)}"),
        ("huggingface_token", f"HF_TOKEN=hf_{_pick(rng, string.ascii_letters, 34)}"),
        ("sendgrid_key", f"SENDGRID_API_KEY=SG.{_pick(rng, URLSAFE, 22)}.{_pick(rng, URLSAFE, 43)}"),
        ("shopify_token", f"X-Shopify-Access-Token: shpat_{_pick(rng, HEX, 32)}"),
        ("digitalocean_token", f"DIGITALOCEAN_TOKEN=dop_v1_{_pick(rng, HEX, 64)}"),
        ("databricks_token", f"DATABRICKS_TOKEN=dapi{_pick(rng, HEX, 32)}"),
        ("telegram_bot_token", f"bot url https://api.telegram.org/bot{rng.randrange(10**8, 10**9)}:AA{_pick(rng, URLSAFE, 33)}/getMe"),
        ("groq_key", f"GROQ_API_KEY=gsk_{_pick(rng, ALNUM, 52)}"),
        ("linear_key", f"LINEAR_API_KEY=lin_api_{_pick(rng, ALNUM, 40)}"),
        ("postman_key", f"x-api-key: PMAK-{_pick(rng, HEX, 24)}-{_pick(rng, HEX, 34)}"),
        ("square_token", f"SQUARE_ACCESS_TOKEN=sq0atp-{_pick(rng, URLSAFE, 22)}"),
        ("private_key", _pem(rng, "RSA PRIVATE KEY")),
        ("private_key", _pem(rng, "OPENSSH PRIVATE KEY")),
        ("private_key", '{"type": "service_account", "private_key": "' + _pem(rng, "PRIVATE KEY").replace("\n", "\\n") + '\\n"}'),
        ("private_key", _pem(rng, "EC PRIVATE KEY")),
        ("jwt", f"Cookie: session={_jwt(rng)}"),
        ("jwt", f'{{"id_token": "{_jwt(rng)}"}}'),
        ("bearer_token", f"Authorization: Bearer {_pick(rng, ALNUM, 40)}"),
        ("basic_auth", "Authorization: Basic " + base64.b64encode(f"deploy:{_pick(rng, ALNUM, 16)}".encode()).decode()),
        ("url_password", f"DATABASE_URL=postgres://app:{_pick(rng, ALNUM, 18)}@db.internal:5432/app"),
        ("url_password", f"mongodb+srv://admin:{_pick(rng, ALNUM, 14)}@cluster0.ab1cd.mongodb.net/test"),
        ("url_password", f"redis://default:{_pick(rng, ALNUM, 20)}@cache:6379/0"),
        ("url_password", f"amqp://guest:{_pick(rng, ALNUM, 12)}@rabbit:5672/"),
        ("connection_string_password", f"Server=tcp:sql.acme.net,1433;Database=app;User ID=app;Password={_pick(rng, ALNUM, 10)}!9;Encrypt=True;"),
        ("assigned_secret", f'api_key = "{_pick(rng, ALNUM, 32)}"'),
        ("assigned_secret", f"SECRET_KEY='{_pick(rng, ALNUM + '!@#%^&*', 50)}'"),
        ("assigned_secret", f'"client_secret": "{_pick(rng, HEX, 40)}"'),
        ("assigned_secret", f"db_password: {_pick(rng, string.ascii_lowercase, 6)}{_pick(rng, string.digits, 3)}{_pick(rng, string.ascii_uppercase, 2)}!"),
        ("assigned_secret", f'  "password": "{_pick(rng, ALNUM, 12)}#",'),
        ("assigned_secret", f"webhook_secret={_pick(rng, ALNUM, 24)}"),
        ("assigned_secret", f"access_token: {_pick(rng, URLSAFE, 48)}"),
        ("assigned_secret", f"ENCRYPTION_KEY={base64.b64encode(rng.randbytes(32)).decode()}"),
    ]  # fmt: skip
    return out
