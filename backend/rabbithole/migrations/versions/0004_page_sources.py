"""Where a page's text came from (the text layer or OCR), the OCR's mean confidence and its word boxes
(catalog/tables.py: pages.source, pages.ocr_confidence, pages.words_json).

Revision ID: 0004
Revises: 0003
Create Date: 2025-01-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("pages", sa.Column("source", sa.String(), nullable=False, server_default="text"))
    op.add_column("pages", sa.Column("ocr_confidence", sa.Float(), nullable=True))
    op.add_column("pages", sa.Column("words_json", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    op.drop_column("pages", "words_json")
    op.drop_column("pages", "ocr_confidence")
    op.drop_column("pages", "source")
