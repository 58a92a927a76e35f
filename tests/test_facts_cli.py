"""``finchunk facts load/get/history/frame`` on a small hand-made companyfacts file and a tiny
inline XBRL filing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchunk.cli import app

runner = CliRunner()


def _row(val, accn, form, filed, start="2020-01-01", end="2020-12-31"):
    row = {"end": end, "val": val, "accn": accn, "form": form, "filed": filed}
    if start:
        row["start"] = start
    return row


def _companyfacts(cik: int, revenue_rows: list[dict]) -> dict:
    eps = [_row(1.53, "0000000001-21-000001", "10-K", "2021-02-01")]
    return {
        "cik": cik,
        "entityName": f"Co {cik}",
        "facts": {
            "us-gaap": {
                "Revenues": {"units": {"USD": revenue_rows}},
                "EarningsPerShareBasic": {"units": {"USD/shares": eps}},
            }
        },
    }


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    one = tmp_path / "one.json"
    one.write_text(
        json.dumps(
            _companyfacts(
                1,
                [
                    _row(100, "0000000001-21-000001", "10-K", "2021-02-01"),
                    _row(90, "0000000001-21-000099", "10-K/A", "2021-06-15"),
                ],
            )
        )
    )
    two = tmp_path / "two.json"
    two.write_text(
        json.dumps(
            _companyfacts(
                2,
                [
                    _row(500, "0000000002-21-000001", "10-K", "2021-03-01"),
                ],
            )
        )
    )
    path = tmp_path / "facts.sqlite"
    result = runner.invoke(app, ["facts", "load", str(one), str(two), "--db", str(path)])
    assert result.exit_code == 0, result.output
    assert "3 facts, 3 new" in result.output
    return path


def _json(args: list[str], exit_code: int = 0):
    result = runner.invoke(app, ["facts", *args, "--json"])
    assert result.exit_code == exit_code, result.output
    return json.loads(result.output)


def test_get_json_shape_and_as_of(db):
    base = [
        "get",
        "--db",
        str(db),
        "--cik",
        "1",
        "--concept",
        "us-gaap:Revenues",
        "--start",
        "2020-01-01",
        "--end",
        "2020-12-31",
    ]
    before = _json([*base, "--as-of", "2021-06-14"])
    assert before == {
        "value": "100",
        "display": "$100",
        "unit": "USD",
        "start": "2020-01-01",
        "end": "2020-12-31",
        "accn": "0000000001-21-000001",
        "form": "10-K",
        "filed": "2021-02-01",
        "derived": None,
        "cik": 1,
        "concept": "us-gaap:Revenues",
        "reason": None,
    }
    assert _json([*base, "--as-of", "2021-06-15"])["value"] == "90"
    nothing = _json([*base, "--as-of", "2020-06-01"], exit_code=1)
    assert nothing["value"] is None and nothing["reason"]
    plain = runner.invoke(app, ["facts", *base])
    assert plain.exit_code == 0 and ": $90 (10-K/A" in plain.output
    none = runner.invoke(app, ["facts", *base, "--as-of", "2020-06-01"])
    assert none.exit_code == 1 and "no value" in none.output


def test_get_by_fiscal_year_and_refused_q4(db):
    got = _json(
        [
            "get",
            "--db",
            str(db),
            "--cik",
            "1",
            "--concept",
            "us-gaap:Revenues",
            "--fiscal-year",
            "2020",
        ]
    )
    assert (got["value"], got["start"], got["end"]) == ("90", "2020-01-01", "2020-12-31")
    eps = _json(
        [
            "get",
            "--db",
            str(db),
            "--cik",
            "1",
            "--concept",
            "us-gaap:EarningsPerShareBasic",
            "--fiscal-year",
            "2020",
        ]
    )
    assert eps["value"] == "1.53" and eps["unit"] == "USD/shares"


def test_history_and_frame(db):
    rows = _json(
        [
            "history",
            "--db",
            str(db),
            "--cik",
            "1",
            "--concept",
            "us-gaap:Revenues",
            "--start",
            "2020-01-01",
            "--end",
            "2020-12-31",
        ]
    )
    assert rows == [
        {"value": "100", "accn": "0000000001-21-000001", "form": "10-K", "filed": "2021-02-01"},
        {"value": "90", "accn": "0000000001-21-000099", "form": "10-K/A", "filed": "2021-06-15"},
    ]
    frame = _json(
        [
            "frame",
            "--db",
            str(db),
            "--concept",
            "us-gaap:Revenues",
            "--start",
            "2020-01-01",
            "--end",
            "2020-12-31",
            "--as-of",
            "2021-02-28",
        ]
    )
    assert [(r["cik"], r["value"]) for r in frame] == [(1, "100")]
    plain = runner.invoke(
        app,
        [
            "facts",
            "frame",
            "--db",
            str(db),
            "--concept",
            "us-gaap:Revenues",
            "--start",
            "2020-01-01",
            "--end",
            "2020-12-31",
        ],
    )
    assert plain.exit_code == 0 and len(plain.output.strip().splitlines()) == 2


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--start", "2020-01-01"], "both --start and --end"),
        (["--instant", "2020-13-01"], "YYYY-MM-DD"),
        (["--instant", "2020-12-31", "--start", "2020-01-01"], "not both"),
        (["--fiscal-year", "2020", "--quarter", "7"], "quarter must be"),
        (["--fiscal-year", "2020", "--dim", "nonsense"], "AXIS=MEMBER"),
    ],
)
def test_bad_options_are_clear_errors(db, args, words):
    result = runner.invoke(
        app, ["facts", "get", "--db", str(db), "--cik", "1", "--concept", "us-gaap:Revenues", *args]
    )
    assert result.exit_code == 2
    assert words in result.output
    assert "Traceback" not in result.output


def test_missing_store_and_bad_files(tmp_path):
    result = runner.invoke(
        app,
        [
            "facts",
            "get",
            "--db",
            str(tmp_path / "none.sqlite"),
            "--cik",
            "1",
            "--concept",
            "x:Y",
            "--instant",
            "2020-01-01",
        ],
    )
    assert result.exit_code == 2 and "no fact store" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    result = runner.invoke(app, ["facts", "load", str(bad), "--db", str(tmp_path / "f.sqlite")])
    assert result.exit_code == 2 and str(bad) in result.output and "malformed JSON" in result.output


INLINE = """<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12"
 xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:iso4217="http://www.xbrl.org/2003/iso4217"
 xmlns:us-gaap="http://fasb.org/us-gaap/2024" xmlns:dei="http://xbrl.sec.gov/dei/2024"><body>
<div style="display:none"><ix:header><ix:hidden>
<ix:nonNumeric name="dei:DocumentType" contextRef="fy">10-K</ix:nonNumeric></ix:hidden>
<ix:resources><xbrli:context id="fy"><xbrli:entity>
<xbrli:identifier scheme="http://www.sec.gov/CIK">0000000003</xbrli:identifier></xbrli:entity>
<xbrli:period><xbrli:startDate>2020-01-01</xbrli:startDate><xbrli:endDate>2020-12-31</xbrli:endDate>
</xbrli:period></xbrli:context><xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure>
</xbrli:unit></ix:resources></ix:header></div>
<p>Revenue <ix:nonFraction name="us-gaap:Revenues" contextRef="fy" unitRef="usd" decimals="-3"
 scale="3" format="ixt:num-dot-decimal">7,000</ix:nonFraction></p></body></html>"""


def test_load_inline_needs_accession_and_filed_date(db, tmp_path):
    path = tmp_path / "three.htm"
    path.write_text(INLINE)
    refused = runner.invoke(app, ["facts", "load", str(path), "--db", str(db)])
    assert refused.exit_code == 2 and "--accn, --filed" in refused.output
    loaded = runner.invoke(
        app,
        [
            "facts",
            "load",
            str(path),
            "--db",
            str(db),
            "--accn",
            "0000000003-21-000001",
            "--filed",
            "2021-03-05",
        ],
    )
    assert loaded.exit_code == 0, loaded.output
    got = _json(
        [
            "get",
            "--db",
            str(db),
            "--cik",
            "3",
            "--concept",
            "us-gaap:Revenues",
            "--start",
            "2020-01-01",
            "--end",
            "2020-12-31",
            "--as-of",
            "2021-03-05",
        ]
    )
    assert (got["value"], got["form"], got["accn"]) == ("7000000", "10-K", "0000000003-21-000001")


def test_a_version_3_store_is_upgraded_and_gains_the_tickers_table(tmp_path):
    import sqlite3

    from finchunk.facts import FactStore

    path = tmp_path / "old.sqlite"
    with FactStore(path):
        pass
    with sqlite3.connect(path) as old:
        old.execute("DROP TABLE tickers")
        old.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    with FactStore(path) as store:
        assert store.tickers() == {}
    with sqlite3.connect(path) as db:
        version = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    assert version == ("4",)
