"""Retrieval: German-aware BM25 (bm25s), vector search (Chroma) and their fusion.

Import from the submodules (``rabbithole.retrieval.hybrid`` etc.); this package module stays empty so
that importing one part does not pull in the others.
"""
