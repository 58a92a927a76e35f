"""Document priors and automatic filters for shared indexes, measured (filled in below).

Usage (from the repository root, data in ../shared or /work/shared)::

    PYTHONPATH=src python bench/priors.py dev        # demo + EDGAR dev set: tune weights
    PYTHONPATH=src python bench/priors.py fb         # FinanceBench (parse cached in /tmp)

Every row: before → after and how many questions got better / worse (paired, per question,
:func:`finchunk.evaluate.measures.compare`).

Development data: recall@5, bm25, one shared index (corpus scope); before → after,
+better/-worse questions, ~ = the bootstrap interval holds 0 (grid: weight 0.5/1/2,
documents 1/2/3, named 0/1; /tmp/pri-dev1.log has it all):

    demo bytitle bm25-prior w=1.0 named=1.0 0.230 → 0.482 +72/-0
    demo bytitle bm25-prior w=2.0 named=1.0 0.230 → 0.492 +74/-0
    demo bytitle bm25-docs m=2 named=1.0 0.230 → 0.440 +64/-4
    demo bytitle bm25 filter issuer 0.230 → 0.401 +52/-0
    demo bytitle bm25 filter issuer+type 0.230 → 0.435 +61/-0
    demo bytitle bm25 filter iss+year(latest) 0.230 → 0.510 +81/-1
    demo bytitle bm25 filter iss+year(latest+prior) 0.230 → 0.466 +68/-0
    demo bytitle bm25 filter all(any year) 0.230 → 0.565 +94/-0
    demo bytitle+h bm25-prior w=1.0 named=1.0 0.619 → 0.641 +11/-3
    demo bytitle+h bm25-prior w=2.0 named=1.0 0.619 → 0.651 +17/-4
    demo bytitle+h bm25-docs m=2 named=1.0 0.619 → 0.639 +11/-4
    demo bytitle+h bm25 filter issuer 0.619 → 0.631 +6/-0
    demo bytitle+h bm25 filter issuer+type 0.619 → 0.635 +9/-3~
    demo bytitle+h bm25 filter iss+year(latest) 0.619 → 0.655 +21/-7
    demo bytitle+h bm25 filter iss+year(latest+prior) 0.619 → 0.643 +17/-4~
    demo bytitle+h bm25 filter all(any year) 0.619 → 0.677 +24/-3
    demo structure bm25-prior w=1.0 named=1.0 0.278 → 0.506 +58/-0
    demo structure bm25-prior w=2.0 named=1.0 0.278 → 0.524 +67/-5
    demo structure bm25-docs m=2 named=1.0 0.278 → 0.496 +58/-4
    demo structure bm25 filter issuer 0.278 → 0.458 +46/-0
    demo structure bm25 filter issuer+type 0.278 → 0.490 +58/-0
    demo structure bm25 filter iss+year(latest) 0.278 → 0.498 +59/-5
    demo structure bm25 filter iss+year(latest+prior) 0.278 → 0.482 +52/-0
    demo structure bm25 filter all(any year) 0.278 → 0.567 +77/-0
    demo structure+h bm25-prior w=1.0 named=1.0 0.655 → 0.694 +10/-0
    demo structure+h bm25-prior w=2.0 named=1.0 0.655 → 0.716 +18/-1
    demo structure+h bm25-docs m=2 named=1.0 0.655 → 0.671 +8/-4~
    demo structure+h bm25 filter issuer 0.655 → 0.669 +4/-0
    demo structure+h bm25 filter issuer+type 0.655 → 0.685 +9/-1
    demo structure+h bm25 filter iss+year(latest) 0.655 → 0.700 +18/-7
    demo structure+h bm25 filter iss+year(latest+prior) 0.655 → 0.685 +12/-4~
    demo structure+h bm25 filter all(any year) 0.655 → 0.736 +23/-1
    edgar bytitle bm25-prior w=1.0 named=1.0 0.397 → 0.500 +15/-0
    edgar bytitle bm25-prior w=2.0 named=1.0 0.397 → 0.517 +18/-1
    edgar bytitle bm25-docs m=2 named=1.0 0.397 → 0.492 +15/-1
    edgar bytitle bm25 filter issuer 0.397 → 0.475 +12/-0
    edgar bytitle bm25 filter issuer+type 0.397 → 0.475 +12/-0
    edgar bytitle bm25 filter iss+year(latest) 0.397 → 0.521 +18/-1
    edgar bytitle bm25 filter iss+year(latest+prior) 0.397 → 0.496 +15/-1
    edgar bytitle bm25 filter all(any year) 0.397 → 0.521 +18/-1
    edgar bytitle+h bm25-prior w=1.0 named=1.0 0.529 → 0.628 +16/-0
    edgar bytitle+h bm25-prior w=2.0 named=1.0 0.529 → 0.661 +20/-0
    edgar bytitle+h bm25-docs m=2 named=1.0 0.529 → 0.599 +11/-0
    edgar bytitle+h bm25 filter issuer 0.529 → 0.579 +8/-0
    edgar bytitle+h bm25 filter issuer+type 0.529 → 0.583 +9/-0
    edgar bytitle+h bm25 filter iss+year(latest) 0.529 → 0.645 +18/-1
    edgar bytitle+h bm25 filter iss+year(latest+prior) 0.529 → 0.612 +13/-1
    edgar bytitle+h bm25 filter all(any year) 0.529 → 0.645 +18/-1
    edgar structure bm25-prior w=1.0 named=1.0 0.430 → 0.529 +13/-0
    edgar structure bm25-prior w=2.0 named=1.0 0.430 → 0.537 +14/-0
    edgar structure bm25-docs m=2 named=1.0 0.430 → 0.525 +12/-0
    edgar structure bm25 filter issuer 0.430 → 0.508 +10/-0
    edgar structure bm25 filter issuer+type 0.430 → 0.508 +10/-0
    edgar structure bm25 filter iss+year(latest) 0.430 → 0.537 +16/-2
    edgar structure bm25 filter iss+year(latest+prior) 0.430 → 0.525 +14/-2
    edgar structure bm25 filter all(any year) 0.430 → 0.537 +16/-2
    edgar structure+h bm25-prior w=1.0 named=1.0 0.558 → 0.686 +16/-0
    edgar structure+h bm25-prior w=2.0 named=1.0 0.558 → 0.702 +18/-0
    edgar structure+h bm25-docs m=2 named=1.0 0.558 → 0.665 +13/-0
    edgar structure+h bm25 filter issuer 0.558 → 0.632 +9/-0
    edgar structure+h bm25 filter issuer+type 0.558 → 0.632 +9/-0
    edgar structure+h bm25 filter iss+year(latest) 0.558 → 0.694 +19/-2
    edgar structure+h bm25 filter iss+year(latest+prior) 0.558 → 0.665 +15/-2
    edgar structure+h bm25 filter all(any year) 0.558 → 0.694 +19/-2

FinanceBench (129 questions, 74 filings; defaults as chosen on the dev data, not tuned
here): page accuracy @5 then @10 against the same retriever on one shared index with no
prior and no filter; "filter" rows are the filtered scope (they search the question less
the issuer and years named, so a prior has little left to match there):

    base256 bm25-words filter issuer+type 0.124→0.256 +19/-2 0.178→0.357 +27/-4
    base256 bm25-words-prior filter issuer+type 0.124→0.256 +19/-2 0.178→0.357 +27/-4
    base256 bm25-words filter iss+year(latest) 0.124→0.388 +37/-3 0.178→0.504 +46/-4
    base256 bm25-words-prior filter iss+year(latest) 0.124→0.403 +39/-3 0.178→0.512 +47/-4
    base256 bm25-words filter iss+year(latest+prior) 0.124→0.341 +30/-2 0.178→0.442 +37/-3
    base256 bm25-words-prior filter iss+year(latest+prior) 0.124→0.357 +32/-2 0.178→0.450 +38/-3
    base256 bm25-words filter iss+year(latest+next) 0.124→0.341 +31/-3 0.178→0.496 +45/-4
    base256 bm25-words-prior filter iss+year(latest+next) 0.124→0.357 +33/-3 0.178→0.504 +46/-4
    base256 bm25-words filter all(any year) 0.124→0.388 +37/-3 0.178→0.488 +44/-4
    base256 bm25-words-prior filter all(any year) 0.124→0.388 +37/-3 0.178→0.488 +44/-4
    base256 bm25-prior 0.155→0.225 +10/-1 0.178→0.341 +22/-1
    base256 bm25-docs 0.155→0.186 +8/-4~ 0.178→0.248 +13/-4
    base256 bm25 filter issuer 0.155→0.194 +9/-4~ 0.178→0.256 +13/-3
    base256 bm25-prior filter issuer 0.155→0.202 +10/-4~ 0.178→0.264 +14/-3
    base256 bm25 filter issuer+type 0.155→0.202 +10/-4~ 0.178→0.264 +14/-3
    base256 bm25-prior filter issuer+type 0.155→0.202 +10/-4~ 0.178→0.264 +14/-3
    base256 bm25 filter iss+year(latest) 0.155→0.256 +15/-2 0.178→0.372 +27/-2
    base256 bm25-prior filter iss+year(latest) 0.155→0.264 +16/-2 0.178→0.380 +28/-2
    base256 bm25 filter iss+year(latest+prior) 0.155→0.225 +12/-3 0.178→0.326 +22/-3
    base256 bm25-prior filter iss+year(latest+prior) 0.155→0.233 +13/-3 0.178→0.333 +23/-3
    base256 bm25 filter iss+year(latest+next) 0.155→0.240 +13/-2 0.178→0.357 +26/-3
    base256 bm25-prior filter iss+year(latest+next) 0.155→0.248 +14/-2 0.178→0.364 +27/-3
    base256 bm25 filter all(any year) 0.155→0.248 +15/-3 0.178→0.372 +28/-3
    base256 bm25-prior filter all(any year) 0.155→0.248 +15/-3 0.178→0.372 +28/-3
    base256 bm25-words-prior 0.124→0.349 +30/-1 0.178→0.488 +41/-1
    base256 bm25-words-docs 0.124→0.233 +21/-7 0.178→0.380 +33/-7
    base256 bm25-words filter issuer 0.124→0.240 +17/-2 0.178→0.349 +26/-4
    base256 bm25-words-prior filter issuer 0.124→0.256 +19/-2 0.178→0.357 +27/-4
    base256+h bm25-words filter issuer+type 0.171→0.264 +12/-0 0.202→0.357 +20/-0
    base256+h bm25-words-prior filter issuer+type 0.171→0.264 +12/-0 0.202→0.357 +20/-0
    base256+h bm25-words filter iss+year(latest) 0.171→0.372 +27/-1 0.202→0.519 +42/-1
    base256+h bm25-words-prior filter iss+year(latest) 0.171→0.372 +27/-1 0.202→0.527 +43/-1
    base256+h bm25-words filter iss+year(latest+prior) 0.171→0.333 +21/-0 0.202→0.473 +35/-0
    base256+h bm25-words-prior filter iss+year(latest+prior) 0.171→0.333 +21/-0 0.202→0.481 +36/-0
    base256+h bm25-words filter iss+year(latest+next) 0.171→0.333 +22/-1 0.202→0.496 +39/-1
    base256+h bm25-words-prior filter iss+year(latest+next) 0.171→0.333 +22/-1 0.202→0.504 +40/-1
    base256+h bm25-words filter all(any year) 0.171→0.341 +23/-1 0.202→0.512 +41/-1
    base256+h bm25-words-prior filter all(any year) 0.171→0.341 +23/-1 0.202→0.512 +41/-1
    base256+h bm25-prior 0.155→0.264 +14/-0 0.194→0.364 +23/-1
    base256+h bm25-docs 0.155→0.217 +11/-3 0.194→0.279 +15/-4
    base256+h bm25 filter issuer 0.155→0.202 +8/-2~ 0.194→0.256 +12/-4
    base256+h bm25-prior filter issuer 0.155→0.202 +8/-2~ 0.194→0.264 +13/-4
    base256+h bm25 filter issuer+type 0.155→0.202 +8/-2~ 0.194→0.264 +13/-4
    base256+h bm25-prior filter issuer+type 0.155→0.202 +8/-2~ 0.194→0.264 +13/-4
    base256+h bm25 filter iss+year(latest) 0.155→0.264 +15/-1 0.194→0.388 +27/-2
    base256+h bm25-prior filter iss+year(latest) 0.155→0.264 +15/-1 0.194→0.395 +28/-2
    base256+h bm25 filter iss+year(latest+prior) 0.155→0.240 +12/-1 0.194→0.341 +22/-3
    base256+h bm25-prior filter iss+year(latest+prior) 0.155→0.240 +12/-1 0.194→0.349 +23/-3
    base256+h bm25 filter iss+year(latest+next) 0.155→0.240 +12/-1 0.194→0.372 +25/-2
    base256+h bm25-prior filter iss+year(latest+next) 0.155→0.240 +12/-1 0.194→0.380 +26/-2
    base256+h bm25 filter all(any year) 0.155→0.248 +13/-1 0.194→0.380 +27/-3
    base256+h bm25-prior filter all(any year) 0.155→0.248 +13/-1 0.194→0.380 +27/-3
    base256+h bm25-words-prior 0.171→0.295 +17/-1 0.202→0.496 +39/-1
    base256+h bm25-words-docs 0.171→0.194 +11/-8~ 0.202→0.333 +25/-8
    base256+h bm25-words filter issuer 0.171→0.264 +12/-0 0.202→0.349 +19/-0
    base256+h bm25-words-prior filter issuer 0.171→0.264 +12/-0 0.202→0.357 +20/-0
    bytitle bm25-words filter issuer+type 0.140→0.264 +18/-2 0.186→0.357 +28/-6
    bytitle bm25-words-prior filter issuer+type 0.140→0.264 +18/-2 0.186→0.357 +28/-6
    bytitle bm25-words filter iss+year(latest) 0.140→0.403 +36/-2 0.186→0.519 +45/-2
    bytitle bm25-words-prior filter iss+year(latest) 0.140→0.411 +37/-2 0.186→0.527 +46/-2
    bytitle bm25-words filter iss+year(latest+prior) 0.140→0.341 +28/-2 0.186→0.481 +41/-3
    bytitle bm25-words-prior filter iss+year(latest+prior) 0.140→0.349 +29/-2 0.186→0.488 +42/-3
    bytitle bm25-words filter iss+year(latest+next) 0.140→0.372 +32/-2 0.186→0.496 +43/-3
    bytitle bm25-words-prior filter iss+year(latest+next) 0.140→0.388 +34/-2 0.186→0.504 +44/-3
    bytitle bm25-words filter all(any year) 0.140→0.395 +35/-2 0.186→0.504 +44/-3
    bytitle bm25-words-prior filter all(any year) 0.140→0.395 +35/-2 0.186→0.504 +44/-3
    bytitle bm25-prior 0.140→0.225 +12/-1 0.171→0.295 +17/-1
    bytitle bm25-docs 0.140→0.178 +9/-4~ 0.171→0.248 +14/-4
    bytitle bm25 filter issuer 0.140→0.186 +10/-4~ 0.171→0.240 +16/-7~
    bytitle bm25-prior filter issuer 0.140→0.194 +11/-4~ 0.171→0.256 +17/-6
    bytitle bm25 filter issuer+type 0.140→0.194 +11/-4~ 0.171→0.256 +17/-6
    bytitle bm25-prior filter issuer+type 0.140→0.194 +11/-4~ 0.171→0.256 +17/-6
    bytitle bm25 filter iss+year(latest) 0.140→0.256 +19/-4 0.171→0.395 +32/-3
    bytitle bm25-prior filter iss+year(latest) 0.140→0.256 +19/-4 0.171→0.403 +33/-3
    bytitle bm25 filter iss+year(latest+prior) 0.140→0.233 +16/-4 0.171→0.326 +24/-4
    bytitle bm25-prior filter iss+year(latest+prior) 0.140→0.233 +16/-4 0.171→0.333 +25/-4
    bytitle bm25 filter iss+year(latest+next) 0.140→0.233 +16/-4 0.171→0.364 +31/-6
    bytitle bm25-prior filter iss+year(latest+next) 0.140→0.240 +17/-4 0.171→0.380 +32/-5
    bytitle bm25 filter all(any year) 0.140→0.248 +19/-5 0.171→0.364 +29/-4
    bytitle bm25-prior filter all(any year) 0.140→0.248 +19/-5 0.171→0.364 +29/-4
    bytitle bm25-words-prior 0.140→0.310 +23/-1 0.186→0.450 +35/-1
    bytitle bm25-words-docs 0.140→0.186 +15/-9~ 0.186→0.287 +23/-10
    bytitle bm25-words filter issuer 0.140→0.248 +16/-2 0.186→0.349 +27/-6
    bytitle bm25-words-prior filter issuer 0.140→0.264 +18/-2 0.186→0.357 +28/-6
    bytitle+h bm25-words filter issuer+type 0.186→0.248 +10/-2 0.225→0.380 +22/-2
    bytitle+h bm25-words-prior filter issuer+type 0.186→0.248 +10/-2 0.225→0.380 +22/-2
    bytitle+h bm25-words filter iss+year(latest) 0.186→0.395 +30/-3 0.225→0.558 +44/-1
    bytitle+h bm25-words-prior filter iss+year(latest) 0.186→0.395 +30/-3 0.225→0.566 +45/-1
    bytitle+h bm25-words filter iss+year(latest+prior) 0.186→0.372 +26/-2 0.225→0.496 +36/-1
    bytitle+h bm25-words-prior filter iss+year(latest+prior) 0.186→0.372 +26/-2 0.225→0.504 +37/-1
    bytitle+h bm25-words filter iss+year(latest+next) 0.186→0.341 +24/-4 0.225→0.535 +41/-1
    bytitle+h bm25-words-prior filter iss+year(latest+next) 0.186→0.349 +24/-3 0.225→0.543 +42/-1
    bytitle+h bm25-words filter all(any year) 0.186→0.380 +28/-3 0.225→0.535 +41/-1
    bytitle+h bm25-words-prior filter all(any year) 0.186→0.380 +28/-3 0.225→0.535 +41/-1
    bytitle+h bm25-prior 0.163→0.256 +13/-1 0.178→0.326 +20/-1
    bytitle+h bm25-docs 0.163→0.194 +8/-4~ 0.178→0.279 +17/-4
    bytitle+h bm25 filter issuer 0.163→0.202 +6/-1~ 0.178→0.271 +12/-0
    bytitle+h bm25-prior filter issuer 0.163→0.209 +7/-1 0.178→0.279 +13/-0
    bytitle+h bm25 filter issuer+type 0.163→0.209 +7/-1 0.178→0.279 +13/-0
    bytitle+h bm25-prior filter issuer+type 0.163→0.209 +7/-1 0.178→0.279 +13/-0
    bytitle+h bm25 filter iss+year(latest) 0.163→0.264 +15/-2 0.178→0.434 +34/-1
    bytitle+h bm25-prior filter iss+year(latest) 0.163→0.264 +15/-2 0.178→0.442 +35/-1
    bytitle+h bm25 filter iss+year(latest+prior) 0.163→0.248 +12/-1 0.178→0.364 +24/-0
    bytitle+h bm25-prior filter iss+year(latest+prior) 0.163→0.248 +12/-1 0.178→0.372 +25/-0
    bytitle+h bm25 filter iss+year(latest+next) 0.163→0.233 +11/-2 0.178→0.419 +32/-1
    bytitle+h bm25-prior filter iss+year(latest+next) 0.163→0.240 +12/-2 0.178→0.426 +33/-1
    bytitle+h bm25 filter all(any year) 0.163→0.248 +13/-2 0.178→0.395 +29/-1
    bytitle+h bm25-prior filter all(any year) 0.163→0.248 +13/-2 0.178→0.395 +29/-1
    bytitle+h bm25-words-prior 0.186→0.318 +18/-1 0.225→0.473 +33/-1
    bytitle+h bm25-words-docs 0.186→0.217 +14/-10~ 0.225→0.341 +25/-10
    bytitle+h bm25-words filter issuer 0.186→0.240 +10/-3~ 0.225→0.372 +21/-2
    bytitle+h bm25-words-prior filter issuer 0.186→0.248 +10/-2 0.225→0.380 +22/-2

Summary. Defaults (``PriorParams``): fused weight 2 (w=1 and w=2 within noise of each
other on dev; 2 better without a header), two-stage 2 documents (1 wins most on the demo
without a header but loses 16-28 questions; 2 is best on EDGAR), named issuer 1 (helps the
two-stage on EDGAR in all four settings, neutral to slightly worse fused on the demo).
FinanceBench shared index, no filter: bm25-words-prior reaches 0.450-0.496 @10 (from
0.178-0.225; +33..41/-1), meeting the 0.45 target in all four chunkings; bm25-prior (plain
analyzer: card years count) only 0.295-0.364. Two-stage is worse than fused everywhere on
FinanceBench. Best automatic filter: issuer + latest named year (today's filtered scope),
0.504-0.566 @10; with the prior 0.512-0.566: short of the 0.60 target. The forecast-safe
year policies (latest+prior, latest+next) cost 2-6 points on every data set here: they are
available (``YearPolicy``) but not the default. Issuer-only and issuer+type filters are far
weaker than adding the year (0.24-0.38 @10).
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from finchunk.chunk import make_chunker
from finchunk.datasets import SampleConfig, generate, write_lesson_files
from finchunk.datasets.financebench import load_financebench
from finchunk.evaluate.corpus import Corpus, read_corpus
from finchunk.evaluate.financebench import (
    FBScope,
    FBStrategy,
    align_gold,
    chunk_all,
    chunk_source,
    describe_documents,
    filtered_filings,
    make_strategy,
    parse_documents,
    scope_queries,
)
from finchunk.evaluate.gold import GoldSet, gold_from_corpus
from finchunk.evaluate.harness import chunk_corpus, queries
from finchunk.evaluate.measures import Measure, PageHit, Recall, compare, score
from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions
from finchunk.evaluate.runs import Query, Run, rank
from finchunk.retrieve.query.cards import DocumentMap
from finchunk.retrieve.query.filters import AutoFilterPolicy, FilterField
from finchunk.retrieve.query.mentions import YearPolicy
from finchunk.retrieve.query.priors import PriorParams
from finchunk.retrieve.query.retriever import RetrieverOptions
from finchunk.retrieve.query.texts import InMemoryTexts

ROOT = Path(__file__).resolve().parent.parent
SHARED = next(
    (p for p in (ROOT.parent / "shared" / "data", Path("/work/shared/data")) if p.is_dir()),
    Path("/work/shared/data"),
)
CACHE = Path("/tmp")
ISSUER = frozenset({FilterField.ISSUER})
FILTERS = {
    "issuer": AutoFilterPolicy(ISSUER, YearPolicy.LATEST),
    "issuer+type": AutoFilterPolicy(ISSUER | {FilterField.DOC_TYPE}, YearPolicy.LATEST),
    "issuer+year(latest)": AutoFilterPolicy(ISSUER | {FilterField.YEAR}, YearPolicy.LATEST),
    "issuer+year(latest-and-prior)": AutoFilterPolicy(
        ISSUER | {FilterField.YEAR}, YearPolicy.LATEST_AND_PRIOR
    ),
    "issuer+year(latest-and-next)": AutoFilterPolicy(
        ISSUER | {FilterField.YEAR}, YearPolicy.LATEST_AND_NEXT
    ),
    "issuer+type+year(latest-and-prior)": AutoFilterPolicy(
        frozenset(FilterField), YearPolicy.LATEST_AND_PRIOR
    ),
    "all(any year)": AutoFilterPolicy(),
}


@dataclass(frozen=True)
class Setting:
    """One corpus chunked one way: its chunks, a shared source, the gold, the measure."""

    name: str
    chunks: Sequence
    source: InMemoryTexts
    gold: GoldSet
    measures: tuple[Measure, ...]


def _row(label: str, base: Run, run: Run, s: Setting) -> str:
    a = score(base, s.gold, s.measures).per_query
    b = score(run, s.gold, s.measures).per_query
    cells = []
    for m in s.measures:
        c = compare(a[m], b[m], str(m))
        noise = "~" if c.within_noise else ""
        cells.append(f"{c.mean_a:.3f}→{c.mean_b:.3f} +{c.wins}/-{c.losses}{noise}")
    return f"| {s.name} | {label} | " + " | ".join(cells) + " |"


def _rank(s: Setting, qs: list[Query], retriever: str, k: int, prior: PriorParams) -> Run:
    opts = RetrieverOptions(prior=prior)
    return rank(qs, s.chunks, retriever, k, source=s.source, options=opts, pad=True)


# --- development data ---------------------------------------------------------------------


def demo_corpus() -> Corpus:
    out = CACHE / "pri-demo-corpus"
    if not (out / "questions.csv").is_file():
        write_lesson_files(generate(SampleConfig()), out)
    return read_corpus(out / "documents.parquet", out / "passages.parquet", out / "questions.csv")


def edgar_corpus() -> Corpus:
    path = CACHE / "pri-edgar.pkl"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    qs = read_quote_questions(ROOT / "devsets" / "edgar_dev.jsonl")
    corpus = build_quote_corpus(qs, SHARED / "edgar").corpus
    path.write_bytes(pickle.dumps(corpus))
    return corpus


def dev_setting(name: str, corpus: Corpus, strategy: str, header: bool) -> Setting:
    chunks = chunk_corpus(corpus, make_chunker(strategy, header=header))
    docs = DocumentMap.of([c.doc_id for c in chunks], corpus.documents)
    source = InMemoryTexts([c.text for c in chunks], docs)
    tag = f"{name} {strategy}{'+h' if header else ''}"
    return Setting(tag, chunks, source, gold_from_corpus(corpus), (Recall(5),))


def dev(retrievers: Sequence[str], grid: Grid) -> list[str]:
    lines = []
    for name, corpus in (("demo", demo_corpus()), ("edgar", edgar_corpus())):
        for strategy in ("structure", "bytitle"):
            for header in (False, True):
                s = dev_setting(name, corpus, strategy, header)
                lines += dev_rows(s, corpus, retrievers, grid)
                print("\n".join(lines[-20:]), flush=True)
    return lines


@dataclass(frozen=True)
class Grid:
    weights: tuple[float, ...]
    documents: tuple[int, ...]
    named: tuple[float, ...]


def dev_rows(s: Setting, corpus: Corpus, retrievers: Sequence[str], grid: Grid) -> list[str]:
    qs = queries(corpus)
    out = []
    for r in retrievers:
        base = _rank(s, qs, r, 5, PriorParams())
        for n in grid.named:
            for w in grid.weights:
                p = PriorParams(weight=w, named=n)
                label = f"{r}-prior w={w} named={n}"
                out.append(_row(label, base, _rank(s, qs, f"{r}-prior", 5, p), s))
            for m in grid.documents:
                p = PriorParams(documents=m, named=n)
                label = f"{r}-docs m={m} named={n}"
                out.append(_row(label, base, _rank(s, qs, f"{r}-docs", 5, p), s))
        for fname, policy in FILTERS.items():
            fq = queries(corpus, auto_filter=True, policy=policy)
            out.append(_row(f"{r} filter {fname}", base, _rank(s, fq, r, 5, PriorParams()), s))
    return out


# --- FinanceBench ---------------------------------------------------------------------------


def fb_docs():
    fb = load_financebench(SHARED / "financebench")
    path = CACHE / "pri-fbdocs.pkl"
    if path.is_file():
        docs = pickle.loads(path.read_bytes())
    else:
        docs = parse_documents(fb)
        path.write_bytes(pickle.dumps(docs))
    return fb, describe_documents(fb, docs)


def fb(retrievers: Sequence[str], prior: PriorParams, strategies: Sequence[str]) -> list[str]:
    bench, docs = fb_docs()
    questions = list(bench.questions)
    gold, _ = align_gold(questions, docs)
    corpus_q = scope_queries(FBScope.CORPUS, questions, None)
    plans = {n: filtered_filings(bench, questions, p) for n, p in FILTERS.items()}
    lines = []
    for strategy in strategies:
        for header in (False, True):
            chunks = chunk_all(docs, make_strategy(FBStrategy(strategy), header))
            tag = f"fb {strategy}{'+h' if header else ''}"
            measures = (PageHit(5), PageHit(10))
            s = Setting(tag, chunks, chunk_source(chunks, docs), gold, measures)
            lines += fb_rows(s, retrievers, prior, corpus_q, plans, questions)
            print("\n".join(lines[-12:]), flush=True)
    return lines


def fb_rows(s, retrievers, prior, corpus_q, plans, questions) -> list[str]:
    out = []
    k = 10
    for r in retrievers:
        base = _rank(s, corpus_q, r, k, prior)
        for mode in ("prior", "docs"):
            out.append(_row(f"{r}-{mode}", base, _rank(s, corpus_q, f"{r}-{mode}", k, prior), s))
        for fname, plan in plans.items():
            fq = scope_queries(FBScope.FILTERED, questions, plan)
            for name in (r, f"{r}-prior"):
                run = _rank(s, fq, name, k, prior)
                out.append(_row(f"{name} filter {fname}", base, run, s))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("part", choices=("dev", "fb"))
    ap.add_argument("--retrievers", default="bm25,bm25-words")
    ap.add_argument("--strategies", default="bytitle,base256")
    ap.add_argument("--weights", default="0.5,1,2", help="dev: fused weights to try")
    ap.add_argument("--documents", default="1,3", help="dev: two-stage documents to try")
    ap.add_argument("--nameds", default="0,1", help="dev: named-issuer weights to try")
    ap.add_argument("--weight", type=float, default=PriorParams().weight)
    ap.add_argument("--m", type=int, default=PriorParams().documents)
    ap.add_argument("--named", type=float, default=PriorParams().named)
    a = ap.parse_args(argv)
    retrievers = a.retrievers.split(",")
    if a.part == "dev":
        grid = Grid(
            tuple(float(w) for w in a.weights.split(",")),
            tuple(int(m) for m in a.documents.split(",")),
            tuple(float(n) for n in a.nameds.split(",")),
        )
        lines = dev(retrievers, grid)
    else:
        lines = fb(retrievers, PriorParams(a.weight, a.m, a.named), a.strategies.split(","))
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
