"""`python -m rabbithole` is the `rabbithole` command."""

from rabbithole.cli.main import app

app(prog_name="rabbithole")
