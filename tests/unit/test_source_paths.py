"""The stored source path of a document round-trips, also for a file name that is not UTF-8."""

from __future__ import annotations

import os
from pathlib import Path

from rabbithole.catalog.source_paths import decode_source, encode_source


def test_paths_round_trip(tmp_path: Path) -> None:
    plain = tmp_path / "PrüfG.pdf"
    assert encode_source(plain) == str(plain.resolve())
    assert decode_source(encode_source(plain)) == plain.resolve()

    latin1 = tmp_path / os.fsdecode("Pr\xfcfung.pdf".encode("latin-1"))  # a surrogate escape in the name
    stored = encode_source(latin1)
    stored.encode("utf-8")  # storable as text
    assert decode_source(stored) == latin1.resolve()
    assert decode_source("") is None
