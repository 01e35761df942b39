"""Vector store (ChromaDB). See :mod:`rabbithole.store.chroma_store`."""
