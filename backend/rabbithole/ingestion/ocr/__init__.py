"""OCR with Tesseract: scanned PDF pages (pdf.py calls :func:`read_scanned_pages`) and image files
(:class:`ImageParser`, for PNG, JPEG and TIFF)."""
