"""A collection's OCR languages (collections.ocr_languages: "deu+eng", "" = the server's default
ingestion.ocr.languages) and the languages each document's pages were read in by OCR
(documents.ocr_languages: "" = none read by OCR, or ingested before this revision; catalog/ocr_languages.py
then reads them from the document's warnings).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("collections", sa.Column("ocr_languages", sa.String(), nullable=False, server_default=""))
    op.add_column("documents", sa.Column("ocr_languages", sa.String(), nullable=False, server_default=""))


def downgrade() -> None:
    op.drop_column("documents", "ocr_languages")
    op.drop_column("collections", "ocr_languages")
