"""Financial query expansion: statement names and ratio definitions → the line items behind them.

Questions name metrics ("operating margin", "capex", "quick ratio") and statements ("cash flow
statement"); filings print line items ("Operating income", "Purchases of property, plant and
equipment", "Total current liabilities") under captions ("Consolidated Statements of Cash
Flows"). A lexical retriever misses the link, so the ``bm25-fin`` retriever appends the line
items of each metric or statement a question names to the query. The table holds textbook
definitions (the standard formula of each ratio, the standard captions of each primary
statement), nothing taken from a particular question or filing.
"""

from __future__ import annotations

import re

_STATEMENTS = {
    "balance sheet": "consolidated balance sheets total assets total liabilities equity",
    "statement of financial position": "balance sheets total assets total liabilities equity",
    "income statement": "consolidated statements of income operations earnings net sales revenue",
    "statement of operations": "consolidated statements of income operations earnings",
    "p&l": "consolidated statements of income operations earnings",
    "cash flow statement": "consolidated statements of cash flows operating investing financing"
    " activities",
    "statement of cash flows": "consolidated statements of cash flows operating investing"
    " financing activities",
}
_METRICS = {
    "capital expenditure": "purchases of property plant and equipment capital expenditures",
    "capex": "purchases of property plant and equipment capital expenditures",
    "pp&e": "property plant and equipment net",
    "ppne": "property plant and equipment net",
    "fixed asset": "property plant and equipment net revenue",
    "operating margin": "operating income revenue net sales",
    "operating income": "operating income",
    "gross margin": "gross profit gross margin cost of sales revenue",
    "net profit margin": "net income revenue net sales",
    "net margin": "net income revenue net sales",
    "ebitda": "operating income depreciation and amortization",
    "working capital": "total current assets total current liabilities",
    "quick ratio": "cash and cash equivalents receivables total current liabilities",
    "current ratio": "total current assets total current liabilities",
    "free cash flow": "net cash provided by operating activities purchases of property plant"
    " and equipment",
    "cash conversion": "net cash provided by operating activities net income",
    "inventory turnover": "inventories cost of sales",
    "days payable": "accounts payable cost of sales",
    "dpo": "accounts payable cost of sales",
    "days sales outstanding": "accounts receivable revenue",
    "dso": "accounts receivable revenue",
    "effective tax rate": "effective tax rate provision for income taxes",
    "return on assets": "net income total assets",
    "roa": "net income total assets",
    "return on equity": "net income total shareholders equity",
    "roe": "net income total shareholders equity",
    "debt to equity": "total debt long-term debt total equity",
    "leverage": "total debt long-term debt total equity",
    "interest coverage": "operating income interest expense",
    "dividend": "cash dividends paid per share",
    "payout ratio": "cash dividends paid net income",
    "asset turnover": "revenue total assets",
    "capital intensive": "purchases of property plant and equipment total assets revenue",
    "cogs": "cost of sales cost of goods sold",
    "revenue": "revenue net sales",
}
_LEXICON = {**_STATEMENTS, **_METRICS}
_PATTERN = re.compile(
    r"(?<![a-z0-9])("
    + "|".join(re.escape(k) for k in sorted(_LEXICON, key=len, reverse=True))
    + r")(?![a-z0-9])"
)


def expand_query(question: str) -> str:
    """``question`` followed by the line items of the metrics and statements it names."""
    found = dict.fromkeys(m.group(1) for m in _PATTERN.finditer(question.lower()))
    if not found:
        return question
    return question + " " + " ".join(_LEXICON[k] for k in found)
