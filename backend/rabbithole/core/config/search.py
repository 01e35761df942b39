"""Settings of search (hybrid retrieval) and of reference following."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field


class RetrievalSettings(BaseModel):
    """Hybrid search (vector + BM25, fused by reciprocal rank)."""

    k: int = Field(5, ge=1, le=1000, description="Results returned by default.")
    candidates: int = Field(50, ge=1, le=5000, description="Candidates per retriever before fusion.")
    fusion: Literal["score", "rrf"] = Field(
        "score",
        description="score: weighted sum of normalized scores (cosine similarity rescaled over the vector "
        "candidates, BM25 divided by the best BM25 score) plus a heading-match bonus; rrf: reciprocal rank "
        "fusion.",
    )
    bm25_weight: float = Field(
        0.6, ge=0.0, le=1.0, description="Weight of BM25 in score fusion (the vector side gets the rest)."
    )
    cross_lingual_bm25_weight: float = Field(
        0.8,
        ge=0.0,
        le=1.0,
        description="Weight of BM25 in score fusion for a question BM25 searched through the glossary (an "
        "English question over German documents), instead of bm25_weight: its vectors compare across "
        "languages and rank less well than the glossary's German terms.",
    )
    heading_weight: float = Field(
        0.2,
        ge=0.0,
        le=1.0,
        description="Score fusion: bonus weight of the share of a section heading's words in the query.",
    )
    rrf_k: int = Field(60, ge=1, description="Reciprocal rank fusion constant (fusion = rrf).")
    pin_first: int = Field(
        1,
        ge=0,
        le=5,
        description="Hybrid: each retriever's first pin_first candidates are kept among the first 5 results "
        "(1: a section one retriever ranks first is never fused out of the top 5; 0: off, fusion alone "
        "decides).",
    )
    reranker: Literal["none", "llm", "cross-encoder"] = Field(
        "none",
        description="Rerank the first rerank_candidates hits: llm: the chat model (llm.*); cross-encoder: "
        "a sentence-transformers cross-encoder (rerank_model); none: off.",
    )
    rerank_model: str = Field(
        "", description="Cross-encoder model: local path or a model in the local Hugging Face cache."
    )
    rerank_candidates: int = Field(20, ge=2, le=200, description="Hits the reranker reorders.")
    glossary: bool = Field(
        True,
        description="BM25 searches an English question over German documents with the German terms of its "
        "phrases (built-in English->German glossary of radiation protection, nuclear and legal terms).",
    )
    glossary_path: Path | None = Field(
        None, description="A file of more glossary entries, one a line: 'english phrase | German term; ...'."
    )
    glossary_best_term: bool = Field(
        True,
        description="BM25 scores each English phrase of a cross-lingual question by the German term a "
        "passage matches best (True), or by all of the phrase's German terms summed (False: a phrase "
        "with several terms, 'Wartung; warten; gewartet', counts several times).",
    )
    glossary_vector_weight: float = Field(
        1.0,
        ge=0.0,
        le=4.0,
        description="An English question over German documents is embedded as its own vector plus this "
        "weight times the vector of its glossary translation (both unit length; 0: the question alone).",
    )
    translation_weight: float = Field(
        0.2,
        ge=0.0,
        le=1.0,
        description="Hybrid: an English question over German documents is searched by two vector "
        "retrievers, its own vector and its glossary translation's, fused with this weight for the "
        "translation (beside 1 - bm25_weight and bm25_weight); 0: one vector, the sum of both.",
    )
    thesaurus: bool = Field(
        True,
        description="BM25 searches a German question also with the legal terms of its everyday phrases "
        "('Atommüll' -> 'radioaktive Abfälle'; built-in list retrieval/thesaurus_de.txt).",
    )


class ReferenceSettings(BaseModel):
    """The reference engine: detecting and following references inside the documents."""

    detector: Literal["regex", "llm", "hybrid"] = Field(
        "regex", description="regex: the grammar; llm: the model; hybrid: grammar plus what the model adds."
    )
    max_depth: int = Field(2, ge=0, le=10, description="How many reference hops are followed.")
    token_budget: int = Field(12_000, ge=100, description="Tokens of context expansion may collect.")
    per_document_limit: int = Field(25, ge=1, description="Passages reached per target document at most.")
    min_relevance: float = Field(
        0.15, ge=0.0, le=1.0, description="Cosine similarity below which a reached passage is dropped."
    )
    min_keep: int = Field(5, ge=0, description="Passages kept even below min_relevance.")
    seeds: int = Field(
        25,
        ge=1,
        le=200,
        description="Search hits `trace` starts from when the call names no k (one chunk each, those above "
        "seed_floor; many seeds and one chunk per cited section reach more of what a question needs per "
        "passage).",
    )
    seed_share: float = Field(
        0.4,
        gt=0.0,
        le=1.0,
        description="Share of token_budget the seeds of `trace` may take when the call names no k: the "
        "search hits are kept in order while their tokens fit (at least one), the rest is left to the "
        "references they cite.",
    )
    section_chunks: int = Field(
        1, ge=1, le=50, description="Chunks of a cited section taken when no Absatz singles them out."
    )
    skip_present_sections: bool = Field(
        True,
        description="A cited section already in the context adds only the chunks of the Absätze the "
        "reference names (nothing without them), and a whole-document search only sections not there yet.",
    )
    seed_section_chunks: int = Field(
        0,
        ge=0,
        le=50,
        description="Other chunks of each search hit's section scanned for references at the first hop "
        "(the most relevant ones); one enters the result only when a reference in it is followed.",
    )
    seed_floor: float = Field(
        0.45,
        ge=0.0,
        le=1.0,
        description="`trace` without k keeps the search hits whose fused score is at least this share of the "
        "first hit's (the first always; 0: every hit): few seeds where the first hits stand out, more where "
        "they score alike.",
    )
    distinct_seed_sections: bool = Field(
        True,
        description="`trace` without k keeps the first search hit of each section as a seed and drops later "
        "hits of a section already there (they add no section to the context).",
    )
    source_weight: float = Field(
        1.0,
        ge=0.0,
        le=10.0,
        description="`trace` ranks a cited passage by its relevance times its seed's search score relative "
        "to the first hit's, to this power (0: relevance alone; a later hop inherits its seed's weight; "
        "the research dig's gated expansion ranks by relevance).",
    )
    new_sections_first: bool = Field(
        True,
        description="`trace` takes, per hop, a chunk of each cited section not in the context yet before a "
        "second chunk of a section (another chunk of a cited Absatz, the cited Absatz of a section already "
        "there): with max_reached the cap is spent on sections (with no cap it reorders the hop, which "
        "changes only what the token budget cuts).",
    )
    mention_lead: int = Field(
        2,
        ge=0,
        le=50,
        description="`trace` takes, per hop, at most this many sections of one mention (a citation list such "
        "as '§§ 17, 19, 22, 26 oder 59', the most relevant first) before the other mentions' targets, the "
        "rest of the list after them (0: a list competes section by section; with no cap only the order "
        "changes, and what the token budget cuts).",
    )
    max_reached: int = Field(
        10,
        ge=0,
        le=500,
        description="Passages `trace` reaches through references at most, besides the token budget "
        "(with seeds 25 and seed_floor 0.45: a context of about 20 passages; 0: the token budget alone "
        "limits them, about 53 passages at higher recall, see docs/references.md; the research dig's "
        "gated expansion is not capped).",
    )
