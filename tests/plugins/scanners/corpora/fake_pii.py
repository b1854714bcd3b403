"""Fake personal data for ``pii``: card numbers that pass Luhn in each network's published
range, IBANs with a valid mod-97 check for several countries (none of them an account), e-mail
addresses and international phone numbers in the ways people write them; and text full of
numbers that are none of these."""

from __future__ import annotations

import random


def luhn_complete(prefix: str, length: int, rng: random.Random) -> str:
    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    total = 0
    for index, char in enumerate(reversed(body)):
        value = int(char)
        if index % 2 == 0:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return body + str((10 - total % 10) % 10)


def iban(country: str, bban: str) -> str:
    moved = bban + country + "00"
    check = 98 - int("".join(str(int(c, 36)) for c in moved)) % 97
    return f"{country}{check:02d}{bban}"


def grouped(value: str, size: int = 4, sep: str = " ") -> str:
    return sep.join(value[i : i + size] for i in range(0, len(value), size))


def samples(seed: int = 40) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    visa = luhn_complete("4", 16, rng)
    mc = luhn_complete("53", 16, rng)
    mc2 = luhn_complete("2221", 16, rng)
    amex = luhn_complete("37", 15, rng)
    disc = luhn_complete("6011", 16, rng)
    jcb = luhn_complete("3530", 16, rng)
    diners = luhn_complete("36", 14, rng)
    union = luhn_complete("62", 19, rng)
    de = iban("DE", "370400440532013" + "".join(rng.choice("0123456789") for _ in range(3)))
    gb = iban("GB", "NWBK60161331926819")
    fr = iban("FR", "20041010050500013M02606")
    es = iban("ES", "21000418450200051332")
    nl = iban("NL", "ABNA0417164300")
    ch = iban("CH", "0900000" + "".join(rng.choice("0123456789") for _ in range(10)))
    return [
        ("card_number", f"Card on file: {visa}"),
        ("card_number", f"Mastercard {grouped(mc)} exp 04/29"),
        ("card_number", f"pay with {grouped(mc2, sep='-')}"),
        ("card_number", f"Amex {amex[:4]} {amex[4:10]} {amex[10:]}"),
        ("card_number", f'{{"pan": "{disc}", "cvv": "***"}}'),
        ("card_number", f"JCB card {grouped(jcb)}"),
        ("card_number", f"Diners {diners}"),
        ("card_number", f"UnionPay {union}"),
        ("iban", f"Please pay to {de}."),
        ("iban", f"IBAN: {grouped(de)}"),
        ("iban", f"Beneficiary account {grouped(gb)} (Barclays)"),
        ("iban", f"RIB / IBAN : {grouped(fr)}"),
        ("iban", f"Cuenta: {grouped(es)} BIC CAIXESBBXXX"),
        ("iban", f"{nl}"),
        ("iban", f'{{"recipient": "{ch}", "amount": 120.0}}'),
        ("email", "Write to jane.doe@example.org for access."),
        ("email", "From: Mark Black <mark.black-2134@gmail.com>"),
        ("email", '{"email": "o.brien+invoices@company.co.uk"}'),
        ("email", "cc: ALICE_SMITH@Sub.Domain.Example.COM;"),
        ("phone", "Call me on +44 20 7946 0958 tomorrow."),
        ("phone", "Tel. +49 30 901820"),
        ("phone", "WhatsApp +33 6 12 34 56 78"),
        ("phone", "mobile: +1 (415) 555-0132"),
        ("phone", "+34 912 345 678"),
        ("phone", '{"phone": "+4915112345678"}'),
        ("phone", "Contact +81-3-1234-5678 (Tokyo office)"),
    ]


BENIGN = """\
Order #4000123456 shipped on 2026-03-14; tracking 1Z999AA10123456784.
Invoice INV-2026-000418, amount 1,234.56 EUR, VAT 19%.
Timestamp 1710412345678 (ms), 1710412345 (s), nanoseconds 1710412345678901234.
Version 4.17.21, build 20260314.1, ISBN 978-3-16-148410-0, DOI 10.1000/182.
IP 192.168.100.200, MAC 00:1A:2B:3C:4D:5E, port 5432, PID 4111.
Coordinates 52.520008, 13.404954; elevation +34 m.
git diff --stat: 12 files changed, 340 insertions(+), 120 deletions(-)
+ added line 12345
Temperature +21.5 C, delta +3, score +120/-45.
Call extension 4521 or our local line 030 901820.
Product code DE12ABCD, reference FR76 (partial), account ending 0130.
Dependencies: lodash@4.17.21, @types/node@20.11.5, react@18.2.0.
Images: logo@2x.png, icon@3x.webp.
Remote git@github.com:acme/app.git and ssh deploy@10.0.0.5.
Serial 4532 0151 1283 0367 is printed on the router (not a card).
Meeting 2026-03-14 14:00-15:30, room 4.12, +2 guests.
Hash 4a7d1ed414474e4033ac29ccb8653d9b, uuid 550e8400-e29b-41d4-a716-446655440000.
Phone extensions: x1234, ext. 5678.
Stock: SKU 5012345678900 (EAN-13), 036000291452 (UPC).
Bank code 37040044, BIC COBADEFFXXX, sort code 20-00-00.
Price $1,299.00 + $49.99 shipping.
"""
