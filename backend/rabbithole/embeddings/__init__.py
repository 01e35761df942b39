"""Embedding backends behind one small interface (:class:`Embedder`). Importing this is cheap."""

from rabbithole.embeddings.base import Embedder, FloatArray, l2_normalize
from rabbithole.embeddings.factory import create_embedder

__all__ = ["Embedder", "FloatArray", "create_embedder", "l2_normalize"]
