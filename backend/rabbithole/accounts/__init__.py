"""Accounts of a shared server: users with hashed passwords, personal API tokens, browser sessions, the
collection memberships, and the audit log, in the catalog's database (SQLite or PostgreSQL)."""
