"""Embedding backends behind one small interface (:class:`Embedder`). Importing this is cheap: it imports
neither the settings nor a model (``factory.create_embedder`` builds the configured one)."""

from rabbithole.embeddings.base import Embedder, FloatArray, l2_normalize

__all__ = ["Embedder", "FloatArray", "l2_normalize"]
