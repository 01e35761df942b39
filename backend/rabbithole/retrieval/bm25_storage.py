"""A BM25 index on disk: each version in its own subfolder of the collection's folder, ``current.json``
pointing at the current one (switched atomically, so readers never see a half-written index)."""

from __future__ import annotations

import json
import logging
import os
import shutil
import uuid
from dataclasses import asdict
from pathlib import Path

import numpy as np

from rabbithole.retrieval.bm25_index import FORMAT_VERSION, BM25Index, BM25Params, import_bm25s

log = logging.getLogger(__name__)

_CURRENT = "current.json"
_ROWS_JSON = "rows.json"
_ROWS_NPZ = "rows.npz"


def save_index(index: BM25Index, directory: Path) -> Path:
    """Write ``index`` into a fresh subfolder of ``directory`` and switch ``current.json`` to it
    atomically (readers never see a half-written index); older versions are removed."""
    directory.mkdir(parents=True, exist_ok=True)
    name = f"bm25-{uuid.uuid4().hex[:12]}"
    target = directory / name
    target.mkdir()
    if index.retriever is not None:
        index.retriever.save(str(target), show_progress=False)
    np.savez(
        target / _ROWS_NPZ,
        doc_codes=index.doc_codes,
        section_codes=index.section_codes,
        page=index.page,
        page_end=index.page_end,
        heading_codes=index.heading_codes,
    )
    rows = {
        "format": FORMAT_VERSION,
        "collection": index.collection,
        "revision": index.revision,
        "fingerprint": index.fingerprint,
        "params": asdict(index.params),
        "languages": list(index.languages),
        "has_retriever": index.retriever is not None,
        "ids": index.ids,
        "documents": index.documents,
        "section_keys": index.section_keys,
        "headings": index.headings,
    }
    (target / _ROWS_JSON).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    pointer = {"dir": name, "fingerprint": index.fingerprint, "revision": index.revision}
    tmp = directory / f".{_CURRENT}.{uuid.uuid4().hex[:8]}"
    tmp.write_text(json.dumps(pointer), encoding="utf-8")
    os.replace(tmp, directory / _CURRENT)
    for old in directory.glob("bm25-*"):
        if old.name != name:
            shutil.rmtree(old, ignore_errors=True)
    return target


def load_index(directory: Path, expected_fingerprint: str | None = None) -> BM25Index | None:
    """The stored index, or None when there is none, it is stale (other fingerprint) or unreadable."""
    try:
        pointer = json.loads((directory / _CURRENT).read_text(encoding="utf-8"))
        if expected_fingerprint is not None and pointer.get("fingerprint") != expected_fingerprint:
            return None
        target = directory / str(pointer["dir"])
        rows = json.loads((target / _ROWS_JSON).read_text(encoding="utf-8"))
        if rows.get("format") != FORMAT_VERSION:
            return None
        retriever = None
        if rows["has_retriever"]:
            bm25s = import_bm25s()

            retriever = bm25s.BM25.load(str(target), show_progress=False)
        with np.load(target / _ROWS_NPZ) as arrays:
            doc_codes = arrays["doc_codes"].astype(np.int32)
            section_codes = arrays["section_codes"].astype(np.int32)
            page = arrays["page"].astype(np.int32)
            page_end = arrays["page_end"].astype(np.int32)
            heading_codes = arrays["heading_codes"].astype(np.int32)
    except FileNotFoundError:
        return None
    except Exception as exc:  # a damaged index is rebuilt, not fatal
        log.warning("BM25 index in %s is unreadable, it will be rebuilt: %s", directory, exc)
        return None
    return BM25Index(
        collection=str(rows["collection"]),
        revision=str(rows["revision"]),
        fingerprint=str(rows["fingerprint"]),
        params=BM25Params(**rows["params"]),
        retriever=retriever,
        ids=list(rows["ids"]),
        documents=list(rows["documents"]),
        doc_codes=doc_codes,
        section_keys=list(rows["section_keys"]),
        section_codes=section_codes,
        page=page,
        page_end=page_end,
        languages=tuple(rows["languages"]),
        headings=list(rows["headings"]),
        heading_codes=heading_codes,
    )
