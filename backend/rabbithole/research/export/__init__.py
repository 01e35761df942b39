"""Exports of a run's result into formats people hand on: DOCX (``export.docx``, python-docx, imported when
used)."""

#: The media type of a .docx file.
DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
