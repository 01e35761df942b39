"""Research runs over HTTP: the background executor (``service``), the REST routes and the SSE streams."""
