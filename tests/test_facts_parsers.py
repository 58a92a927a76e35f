"""Parsers of the fact store on small hand-made inputs: companyfacts JSON, XBRL instances,
inline XBRL; malformed and hostile inputs give clear finchunk errors naming the file."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from finchunk.errors import InputError, ParseError
from finchunk.facts import FactStore
from finchunk.facts.companyfacts import read_companyfacts
from finchunk.facts.instance import FilingOverride
from finchunk.facts.ixbrl import read_inline
from finchunk.facts.loader import read_facts
from finchunk.facts.model import Period
from finchunk.facts.transforms import (
    TransformError,
    num_comma_decimal,
    num_dot_decimal,
    num_words_en,
    transform_for,
)
from finchunk.facts.xbrl import read_instance

GIVEN = FilingOverride(accn="0000000001-21-000001", filed=date(2021, 2, 1))


# ---- companyfacts ---------------------------------------------------------------------------


def _companyfacts(rows: list[dict], cik: object = 42, concept: str = "Revenues") -> dict:
    return {
        "cik": cik,
        "entityName": "Tiny Co",
        "facts": {"us-gaap": {concept: {"label": "x", "units": {"USD": rows}}}},
    }


def _write(tmp_path: Path, name: str, content: str | dict) -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


ROW = {
    "start": "2020-01-01",
    "end": "2020-12-31",
    "val": 100,
    "accn": "0000000001-21-000001",
    "fy": 2020,
    "fp": "FY",
    "form": "10-K",
    "filed": "2021-02-01",
}


def test_companyfacts_keeps_every_observation_with_typed_values(tmp_path):
    later = dict(ROW, val=110, accn="0000000001-22-000001", form="10-K/A", filed="2022-01-10")
    eps = {"end": "2020-12-31", "val": 1.53, "accn": "a", "form": "10-K", "filed": "2021-02-01"}
    doc = _companyfacts([ROW, later], cik="0000000042")
    doc["facts"]["us-gaap"]["Eps"] = {"units": {"USD/shares": [dict(eps, start="2020-01-01")]}}
    parsed = read_companyfacts(_write(tmp_path, "cf.json", doc))
    assert parsed.entity_name == "Tiny Co"
    revenue = [f for f in parsed.facts if f.concept == "us-gaap:Revenues"]
    assert [(f.value, f.filing.form) for f in revenue] == [(100, "10-K"), (110, "10-K/A")]
    assert revenue[0].cik == 42
    assert revenue[0].period == Period.duration(date(2020, 1, 1), date(2020, 12, 31))
    eps_fact = next(f for f in parsed.facts if f.concept == "us-gaap:Eps")
    assert eps_fact.value == Decimal("1.53") and isinstance(eps_fact.value, Decimal)
    assert eps_fact.unit == "USD/shares"


def test_companyfacts_instant_has_no_start(tmp_path):
    row = {k: v for k, v in ROW.items() if k != "start"}
    parsed = read_companyfacts(_write(tmp_path, "cf.json", _companyfacts([row])))
    assert parsed.facts[0].period == Period.instant(date(2020, 12, 31))


def test_malformed_json_names_file_and_line(tmp_path):
    path = _write(tmp_path, "bad.json", '{"cik": 1,\n "facts": {')
    with pytest.raises(ParseError) as err:
        read_companyfacts(path)
    assert err.value.source == str(path)
    assert "line 2" in str(err.value.position)


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda r: r.pop("filed"), "lacks filed"),
        (lambda r: r.update(end="2020-13-01"), "not a date"),
        (lambda r: r.update(val="100"), "not a number"),
        (lambda r: r.update(start="2021-06-01"), "starts after it ends"),
    ],
)
def test_bad_observation_names_where(tmp_path, mutate, words):
    row = dict(ROW)
    mutate(row)
    path = _write(tmp_path, "cf.json", _companyfacts([row]))
    with pytest.raises(ParseError) as err:
        read_companyfacts(path)
    assert words in str(err.value)
    assert "facts.us-gaap.Revenues.units.USD[0]" in str(err.value)
    assert str(path) in str(err.value)


def test_not_companyfacts(tmp_path):
    with pytest.raises(ParseError, match="not a companyfacts document"):
        read_companyfacts(_write(tmp_path, "x.json", [1, 2]))
    with pytest.raises(ParseError, match="not a CIK"):
        read_companyfacts(_write(tmp_path, "y.json", _companyfacts([ROW], cik="abc")))


def test_repeated_observation_must_agree(tmp_path):
    same = read_companyfacts(_write(tmp_path, "a.json", _companyfacts([ROW, dict(ROW)])))
    assert len(same.facts) == 1 and same.duplicates == 1
    with pytest.raises(ParseError, match="twice with different values"):
        read_companyfacts(_write(tmp_path, "b.json", _companyfacts([ROW, dict(ROW, val=7)])))


# ---- XBRL instance --------------------------------------------------------------------------

INSTANCE = """<?xml version="1.0" encoding="utf-8"?>
<xbrl xmlns="http://www.xbrl.org/2003/instance"
      xmlns:g="http://fasb.org/us-gaap/2024" xmlns:dei="http://xbrl.sec.gov/dei/2024"
      xmlns:iso4217="http://www.xbrl.org/2003/iso4217" xmlns:xbrldi="http://xbrl.org/2006/xbrldi"
      xmlns:tiny="http://tiny.example/2024"
      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <context id="fy">
    <entity><identifier scheme="http://www.sec.gov/CIK">0000000042</identifier></entity>
    <period><startDate>2020-01-01</startDate><endDate>2020-12-31</endDate></period>
  </context>
  <context id="fy_seg">
    <entity><identifier scheme="http://www.sec.gov/CIK">0000000042</identifier>
      <segment>
        <xbrldi:explicitMember
   dimension="g:StatementBusinessSegmentsAxis">tiny:WidgetsMember</xbrldi:explicitMember>
        <xbrldi:typedMember
   dimension="tiny:ContractAxis"><tiny:id>C-7</tiny:id></xbrldi:typedMember>
      </segment>
    </entity>
    <period><startDate>2020-01-01</startDate><endDate>2020-12-31</endDate></period>
  </context>
  <context id="ye">
    <entity><identifier scheme="http://www.sec.gov/CIK">0000000042</identifier></entity>
    <period><instant>2020-12-31</instant></period>
  </context>
  <unit id="usd"><measure>iso4217:USD</measure></unit>
  <unit id="eps"><divide><unitNumerator><measure>iso4217:USD</measure></unitNumerator>
    <unitDenominator><measure>shares</measure></unitDenominator></divide></unit>
  <dei:DocumentType contextRef="fy">10-K</dei:DocumentType>
  <dei:AmendmentFlag contextRef="fy">true</dei:AmendmentFlag>
  <dei:EntityRegistrantName contextRef="fy">Tiny Co</dei:EntityRegistrantName>
  <g:Revenues contextRef="fy" unitRef="usd" decimals="-6">1000000000</g:Revenues>
  <g:Revenues contextRef="fy" unitRef="usd" decimals="-3">1000123000</g:Revenues>
  <g:Revenues contextRef="fy_seg" unitRef="usd" decimals="-6">400000000</g:Revenues>
  <g:EarningsPerShareBasic contextRef="fy" unitRef="eps" decimals="2">1.53</g:EarningsPerShareBasic>
  <g:Assets contextRef="ye" unitRef="usd" decimals="INF">-70</g:Assets>
  <g:Liabilities contextRef="ye" unitRef="usd" xsi:nil="true"/>
</xbrl>
"""


def _instance(tmp_path: Path, text: str = INSTANCE, name: str = "tiny.xml") -> Path:
    return _write(tmp_path, name, text)


def test_instance_contexts_units_dimensions_and_metadata(tmp_path):
    parsed = read_instance(_instance(tmp_path), GIVEN)
    by_key = {(f.concept, f.unit, f.dims): f for f in parsed.facts}
    revenue = by_key[("us-gaap:Revenues", "USD", ())]
    assert revenue.value == Decimal("1000123000")  # the more precise of two consistent reports
    assert revenue.decimals == "-3"
    assert parsed.duplicates == 1
    segment = next(f for f in parsed.facts if f.dims)
    assert segment.dims == (
        ("tiny:ContractAxis", "C-7"),
        ("us-gaap:StatementBusinessSegmentsAxis", "tiny:WidgetsMember"),
    )
    assert segment.value == 400000000
    eps = by_key[("us-gaap:EarningsPerShareBasic", "USD/shares", ())]
    assert eps.value == Decimal("1.53")
    assets = by_key[("us-gaap:Assets", "USD", ())]
    assert assets.period == Period.instant(date(2020, 12, 31)) and assets.value == -70
    assert parsed.nil_facts == 1
    assert revenue.filing.form == "10-K/A"  # DocumentType plus AmendmentFlag
    assert revenue.filing.accn == GIVEN.accn and revenue.filing.filed == date(2021, 2, 1)
    assert parsed.entity_name == "Tiny Co"


def test_command_line_form_wins_and_missing_metadata_is_an_error(tmp_path):
    path = _instance(tmp_path)
    given = FilingOverride(accn="a", form="10-K", filed=date(2021, 2, 1))
    assert read_instance(path, given).facts[0].filing.form == "10-K"
    with pytest.raises(InputError, match="--accn, --filed"):
        read_instance(path)


def test_inconsistent_duplicates_are_an_error(tmp_path):
    text = INSTANCE.replace(">1000123000<", ">1200000000<")
    with pytest.raises(ParseError, match="inconsistent duplicate"):
        read_instance(_instance(tmp_path, text), GIVEN)


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ('contextRef="ye" unitRef="usd" decimals="INF"', 'contextRef="zz" unitRef="usd"', "zz"),
        (">1.53<", ">1.5x<", "not a number"),
        ("<instant>2020-12-31</instant>", "<instant>2020-12-32</instant>", "bad instant"),
        (
            "0000000042</identifier></entity>\n    <period><instant>",
            "LEI</identifier></entity>\n    <period><instant>",
            "not a CIK",
        ),
        ("</xbrl>", "<g:Assets", "malformed XML"),
    ],
)
def test_bad_instance_names_file(tmp_path, old, new, words):
    assert old in INSTANCE
    path = _instance(tmp_path, INSTANCE.replace(old, new, 1))
    with pytest.raises(ParseError) as err:
        read_instance(path, GIVEN)
    assert words in str(err.value) and str(path) in str(err.value)


BOMB = """<?xml version="1.0"?>
<!DOCTYPE xbrl [
 <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
 <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
]>
<xbrl xmlns="http://www.xbrl.org/2003/instance">&f;</xbrl>
"""

EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE xbrl [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<xbrl xmlns="http://www.xbrl.org/2003/instance">&secret;</xbrl>
"""

NETWORK_DTD = """<?xml version="1.0"?>
<!DOCTYPE xbrl SYSTEM "http://example.invalid/evil.dtd">
<xbrl xmlns="http://www.xbrl.org/2003/instance"></xbrl>
"""


@pytest.mark.parametrize("text", [BOMB, EXTERNAL, NETWORK_DTD], ids=["bomb", "xxe", "dtd"])
def test_hostile_xml_is_refused(tmp_path, text):
    path = _instance(tmp_path, text, "evil.xml")
    with pytest.raises(ParseError) as err:
        read_instance(path, GIVEN)
    assert "unsafe XML refused" in str(err.value) and str(path) in str(err.value)


def test_not_an_instance(tmp_path):
    with pytest.raises(ParseError, match="not an XBRL instance"):
        read_instance(_instance(tmp_path, "<html/>"), GIVEN)


# ---- inline XBRL ----------------------------------------------------------------------------

INLINE = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12"
 xmlns:ixt-sec="http://www.sec.gov/inlineXBRL/transformation/2015-08-31"
 xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:xbrldi="http://xbrl.org/2006/xbrldi"
 xmlns:iso4217="http://www.xbrl.org/2003/iso4217" xmlns:us-gaap="http://fasb.org/us-gaap/2024"
 xmlns:dei="http://xbrl.sec.gov/dei/2024" xmlns:tiny="http://tiny.example/2024">
<head><title>Tiny 10-Q</title></head>
<body>
<div style="display:none"><ix:header>
 <ix:hidden>
  <ix:nonNumeric name="dei:DocumentType" contextRef="q">10-Q</ix:nonNumeric>
  <ix:nonNumeric name="dei:AmendmentFlag" contextRef="q">false</ix:nonNumeric>
 </ix:hidden>
 <ix:resources>
  <xbrli:context id="q"><xbrli:entity>
<xbrli:identifier scheme="http://www.sec.gov/CIK">42</xbrli:identifier></xbrli:entity>
   <xbrli:period><xbrli:startDate>2021-01-01</xbrli:startDate>
<xbrli:endDate>2021-03-31</xbrli:endDate></xbrli:period></xbrli:context>
  <xbrli:context id="q_seg"><xbrli:entity>
<xbrli:identifier scheme="http://www.sec.gov/CIK">42</xbrli:identifier>
   <xbrli:segment><xbrldi:explicitMember
   dimension="us-gaap:StatementBusinessSegmentsAxis">tiny:WidgetsMember</xbrldi:explicitMember>
</xbrli:segment></xbrli:entity>
   <xbrli:period><xbrli:startDate>2021-01-01</xbrli:startDate>
<xbrli:endDate>2021-03-31</xbrli:endDate></xbrli:period></xbrli:context>
  <xbrli:context id="i"><xbrli:entity>
<xbrli:identifier scheme="http://www.sec.gov/CIK">42</xbrli:identifier></xbrli:entity>
   <xbrli:period><xbrli:instant>2021-03-31</xbrli:instant></xbrli:period></xbrli:context>
  <xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
  <xbrli:unit id="shares"><xbrli:measure>xbrli:shares</xbrli:measure></xbrli:unit>
 </ix:resources>
</ix:header></div>
<p>Registrant: <ix:nonNumeric name="dei:EntityRegistrantName" contextRef="q"
   continuedAt="c1">Tiny</ix:nonNumeric>
 and then <ix:continuation id="c1">Widgets<ix:exclude> (page 2)</ix:exclude> Co</ix:continuation>
</p>
<table>
<tr><td>Revenue</td><td>$<ix:nonFraction name="us-gaap:Revenues" contextRef="q" unitRef="usd"
   decimals="-6" scale="6" format="ixt:num-dot-decimal">1,234.5</ix:nonFraction></td></tr>
<tr><td>Widgets</td><td><ix:nonFraction name="us-gaap:Revenues" contextRef="q_seg" unitRef="usd"
   decimals="-6" scale="6" format="ixt:num-dot-decimal">400</ix:nonFraction></td></tr>
<tr><td>Loss</td><td>(<ix:nonFraction name="us-gaap:OtherNonoperatingIncomeExpense" contextRef="q"
   unitRef="usd" decimals="-3" scale="3" sign="-"
   format="ixt:num-dot-decimal">12</ix:nonFraction>)</td></tr>
<tr><td>Impairment</td><td><ix:nonFraction name="us-gaap:GoodwillImpairmentLoss" contextRef="q"
   unitRef="usd" decimals="-6" scale="6"
   format="ixt:fixed-zero">&#8212;</ix:nonFraction></td></tr>
<tr><td>Cash</td><td><ix:nonFraction name="us-gaap:Cash" contextRef="i" unitRef="usd"
   decimals="0">98.76</ix:nonFraction></td></tr>
<tr><td>Segments</td><td><ix:nonFraction name="us-gaap:NumberOfSegments" contextRef="i"
   unitRef="shares" decimals="INF" format="ixt-sec:numwordsen">two</ix:nonFraction></td></tr>
</table>
</body></html>
"""


def _inline(tmp_path: Path, text: str = INLINE) -> Path:
    return _write(tmp_path, "tiny.htm", text)


def test_inline_scale_sign_formats_dimensions(tmp_path):
    parsed = read_inline(_inline(tmp_path), GIVEN)
    values = {(f.concept, f.dims): f.value for f in parsed.facts}
    assert values[("us-gaap:Revenues", ())] == Decimal("1234500000")
    seg = (("us-gaap:StatementBusinessSegmentsAxis", "tiny:WidgetsMember"),)
    assert values[("us-gaap:Revenues", seg)] == Decimal("400000000")
    assert values[("us-gaap:OtherNonoperatingIncomeExpense", ())] == Decimal("-12000")
    assert values[("us-gaap:GoodwillImpairmentLoss", ())] == 0
    assert values[("us-gaap:Cash", ())] == Decimal("98.76")
    assert values[("us-gaap:NumberOfSegments", ())] == 2
    cash = next(f for f in parsed.facts if f.concept == "us-gaap:Cash")
    assert cash.period == Period.instant(date(2021, 3, 31))
    revenue = next(f for f in parsed.facts if f.concept == "us-gaap:Revenues")
    assert revenue.period == Period.duration(date(2021, 1, 1), date(2021, 3, 31))
    assert revenue.filing.form == "10-Q"
    assert parsed.entity_name == "Tiny Widgets Co"  # continuation joined, ix:exclude left out


def test_inline_and_instance_loader_dispatch(tmp_path):
    assert read_facts(_inline(tmp_path), GIVEN).facts
    with pytest.raises(InputError, match="unknown kind"):
        read_facts(_write(tmp_path, "x.csv", "a,b"))
    with pytest.raises(InputError, match="companyfacts gives them"):
        read_facts(_write(tmp_path, "cf.json", _companyfacts([ROW])), GIVEN)
    with pytest.raises(ParseError, match="no such file"):
        read_facts(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ('format="ixt:fixed-zero"', 'format="ixt:date-monthname-day-year-en"', "unsupported"),
        (">98.76<", ">98,76<", "not a decimal"),
        (">1,234.5<", ">1.234,5<", "not a number with '.' decimals"),
        ('scale="3"', 'scale="x"', "scale"),
        ('continuedAt="c1"', 'continuedAt="c9"', "c9"),
        ('unitRef="shares"', 'unitRef="nope"', "unknown unit"),
    ],
)
def test_bad_inline_names_file_and_fact(tmp_path, old, new, words):
    assert old in INLINE
    path = _inline(tmp_path, INLINE.replace(old, new, 1))
    with pytest.raises(ParseError) as err:
        read_inline(path, GIVEN)
    assert words in str(err.value) and str(path) in str(err.value)


def test_inline_continuation_loop_is_an_error(tmp_path):
    text = INLINE.replace('<ix:continuation id="c1">', '<ix:continuation id="c1" continuedAt="c1">')
    with pytest.raises(ParseError, match="loops"):
        read_inline(_inline(tmp_path, text), GIVEN)


def test_inline_entities_are_not_expanded(tmp_path):
    text = INLINE.replace(
        '<?xml version="1.0" encoding="utf-8"?>',
        '<!DOCTYPE html [<!ENTITY boom "9999">]>',
    ).replace(">98.76<", ">&boom;<")
    with pytest.raises(ParseError, match="not a decimal"):
        read_inline(_inline(tmp_path, text), GIVEN)


def test_html_without_inline_xbrl(tmp_path):
    with pytest.raises(ParseError, match="not iXBRL"):
        read_inline(_write(tmp_path, "plain.htm", "<html><body>Hi</body></html>"), GIVEN)


# ---- transforms -----------------------------------------------------------------------------


def test_transforms():
    assert num_dot_decimal("1,234,567.89") == Decimal("1234567.89")
    assert num_dot_decimal(" 12 ") == 12
    assert num_comma_decimal("1.234.567,89") == Decimal("1234567.89")
    assert num_words_en("no") == 0
    assert num_words_en("forty-five") == 45
    assert num_words_en("one hundred and six") == 106
    assert num_words_en("two thousand three hundred") == 2300
    assert transform_for("ixt:zerodash")("-") == 0
    assert transform_for("ixt:numdotdecimal")("3.5") == Decimal("3.5")
    assert transform_for("ixt:unknown-thing") is None
    for bad, fn in (("1,23", num_dot_decimal), ("abc", num_dot_decimal), ("lots", num_words_en)):
        with pytest.raises(TransformError):
            fn(bad)


# ---- hostile numbers (issue 14): one-line errors, exact values ------------------------------


@pytest.mark.parametrize(
    ("val", "words"),
    [
        ("1E+999999999", "out of range"),
        ("1E-999999999", "out of range"),
        ("1" * 5000, "4,300 digits"),
        ("1." + "1" * 5000, "5001 digits"),
    ],
)
def test_companyfacts_hostile_values_are_one_line_errors(tmp_path, val, words):
    text = json.dumps(_companyfacts([{**ROW, "val": 0}])).replace('"val": 0', f'"val": {val}')
    with pytest.raises(ParseError) as err:
        read_companyfacts(_write(tmp_path, "cf.json", text))
    assert words in str(err.value) and "cf.json" in str(err.value)


def test_companyfacts_deep_nesting_and_duplicate_keys(tmp_path):
    with pytest.raises(ParseError, match=r"deep\.json.*nested too deeply"):
        read_companyfacts(_write(tmp_path, "deep.json", "[" * 50_000 + "]" * 50_000))
    dup = json.dumps(_companyfacts([ROW])).replace('"cik": 42', '"cik": 42, "cik": 43')
    with pytest.raises(ParseError, match=r"dup\.json.*'cik' is given twice"):
        read_companyfacts(_write(tmp_path, "dup.json", dup))


def test_values_past_28_digits_are_kept_exactly(tmp_path):
    from finchunk.facts.values import decimal_text

    long = "1234567890123456789012345678901234.5"
    text = json.dumps(_companyfacts([{**ROW, "val": 0}])).replace('"val": 0', f'"val": {long}')
    (fact,) = read_companyfacts(_write(tmp_path, "cf.json", text)).facts
    assert decimal_text(fact.value) == long
    assert decimal_text(Decimal("1" * 40 + "000")) == "1" * 40 + "000"
    assert decimal_text(Decimal("12.500")) == "12.5"


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ('scale="3"', 'scale="1000000000"', "scale '1000000000' is out of range"),
        ('scale="3"', 'scale="-1000000000"', "out of range"),
        ('scale="3"', 'scale="' + "9" * 5000 + '"', "out of range"),
        ('decimals="0"', 'decimals="1000000000"', "decimals '1000000000' is out of range"),
        ('decimals="0"', 'decimals="-1000000000"', "out of range"),
        (">98.76<", ">1E+999999999<", "not a decimal"),
    ],
)
def test_inline_hostile_scale_and_decimals(tmp_path, old, new, words):
    assert old in INLINE
    path = _inline(tmp_path, INLINE.replace(old, new, 1))
    with pytest.raises(ParseError) as err:
        read_inline(path, GIVEN)
    assert words in str(err.value) and str(path) in str(err.value)


def test_inline_scale_is_exact_past_28_digits(tmp_path):
    digits = "1234567890123456789012345678901"
    path = _inline(tmp_path, INLINE.replace(">98.76<", f">{digits}<").replace('decimals="0"', ""))
    cash = next(f for f in read_inline(path, GIVEN).facts if f.concept == "us-gaap:Cash")
    assert cash.value == Decimal(digits)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('decimals="2">1.53<', 'decimals="-1000000000">1.53<'),
        (">-70<", ">1E+999999999<"),
    ],
)
def test_instance_hostile_numbers(tmp_path, old, new):
    assert old in INSTANCE
    with pytest.raises(ParseError, match=r"tiny\.xml.*out of range"):
        read_instance(_instance(tmp_path, INSTANCE.replace(old, new, 1)), GIVEN)


def test_fuzz_findings_are_one_line_errors(tmp_path):
    # Found by bench/fuzz.py: an exponent Decimal cannot hold; an unknown XML encoding.
    text = json.dumps(_companyfacts([{**ROW, "val": 0}])).replace(
        '"val": 0', '"val": 4e' + "4" * 40
    )
    with pytest.raises(ParseError, match=r"cf\.json.*out of range"):
        read_companyfacts(_write(tmp_path, "cf.json", text))
    xml = INSTANCE.replace('encoding="utf-8"', 'encoding="utf-5"')
    with pytest.raises(ParseError, match=r"tiny\.xml.*unknown encoding"):
        read_instance(_instance(tmp_path, xml), GIVEN)


def test_trading_symbols_are_kept_every_class_and_no_placeholder(tmp_path):
    """dei:TradingSymbol: one a class of security ("GOOGL" and "GOOG"), each kept once, in
    document order; a placeholder ("N/A") is no ticker. The store keeps them per entity."""
    symbols = (
        '<dei:TradingSymbol contextRef="fy">TINY</dei:TradingSymbol>'
        '<dei:TradingSymbol contextRef="fy">TINY.PRA</dei:TradingSymbol>'
        '<dei:TradingSymbol contextRef="fy">N/A</dei:TradingSymbol>'
        '<dei:TradingSymbol contextRef="fy">TINY</dei:TradingSymbol>'
    )
    text = INSTANCE.replace("</xbrl>", symbols + "</xbrl>")
    parsed = read_instance(_instance(tmp_path, text), GIVEN)
    assert parsed.tickers == ("TINY", "TINY.PRA")
    hidden = (
        '<ix:nonNumeric name="dei:TradingSymbol" contextRef="q">TWC</ix:nonNumeric>'
        '<ix:nonNumeric name="dei:TradingSymbol" contextRef="q">None</ix:nonNumeric>'
        '<ix:nonNumeric name="dei:TradingSymbol" contextRef="q">TWC.B</ix:nonNumeric>'
    )
    inline = INLINE.replace("</ix:hidden>", hidden + "</ix:hidden>")
    assert read_inline(_inline(tmp_path, inline), GIVEN).tickers == ("TWC", "TWC.B")
    assert read_inline(_inline(tmp_path), GIVEN).tickers == ()
    with FactStore(tmp_path / "f.sqlite") as store:
        store.add(read_instance(_instance(tmp_path, text), GIVEN))
        assert store.tickers() == {42: ("TINY", "TINY.PRA")}
