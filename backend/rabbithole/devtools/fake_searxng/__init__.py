"""A fake SearxNG for tests and development: its JSON search API over fixture pages it serves itself, and
pages that misbehave on purpose (slow, not HTML, oversized, redirect chains). No network needed.

Start it with ``python -m rabbithole.devtools.fake_searxng --port 8888`` or, in Python::

    with FakeSearxng() as fake:
        settings = fake.settings()                  # WebSettings pointing at it
        fake.pin("{base}/binary", "A PDF")          # a result that is not a web page
        fake.fail_search(status=500)                # SearxNG answers an error

See docs/testing.md.
"""

from rabbithole.devtools.fake_searxng.pages import FixturePage, fixture_pages, matching_pages
from rabbithole.devtools.fake_searxng.runner import FakeSearxng
from rabbithole.devtools.fake_searxng.server import FakeSearxngState, SearchFaults, create_app

__all__ = [
    "FakeSearxng",
    "FakeSearxngState",
    "FixturePage",
    "SearchFaults",
    "create_app",
    "fixture_pages",
    "matching_pages",
]
