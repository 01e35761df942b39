"""SQLite catalog: collections, documents, page texts, chunks and the document registry."""
