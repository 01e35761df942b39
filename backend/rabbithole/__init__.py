"""Rabbithole: a local, privacy-first research assistant over your own documents."""

__version__ = "0.1.0"
