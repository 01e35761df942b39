"""Rabbithole: a local, privacy-first research assistant over your own documents."""
