"""The small generated corpus, embedder and questions that the scale-out backends (Dask,
PostgreSQL) are checked on against the local index."""

from __future__ import annotations

from pathlib import Path

from finchunk.datasets import SampleConfig, generate, write_lesson_files
from finchunk.lesson import read_documents
from finchunk.retrieve.index.build import Source, document_sources
from finchunk.retrieve.index.config import IndexConfig

CONFIG = IndexConfig(model="hashing")
QUERIES = (
    "ingresos netos del ejercicio",
    "riesgo de liquidez del fondo",
    "dividendo por acción",
    "gastos corrientes anuales",
    "deuda financiera neta",
    "plantilla empleados",
    "política de inversión del ETF",
    "beneficio por acción 2023",
)


def write_corpus(folder: Path) -> list[Source]:
    """The corpus's tables written under ``folder``; its documents as build sources."""
    write_lesson_files(generate(SampleConfig(issuers=3, years=2, funds=2, notes=2)), folder)
    return document_sources(read_documents(folder / "documents.parquet"))
