"""Checks of single setting values (URLs, a root path, the data dir, loopback hosts) and the Ollama address
that OLLAMA_HOST gives, as Ollama's own tools read it."""

from __future__ import annotations

import ipaddress
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from rabbithole.core.errors import ConfigurationError

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"

_LABEL = r"[A-Za-z0-9_][A-Za-z0-9_-]{0,62}"
_HOST_NAME = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*\.?$")


def check_http_url(value: str) -> str:
    """``value`` if it is a usable http(s) URL with a host and a valid port; ValueError saying why if not."""
    try:
        parts = urlsplit(value)
        port = parts.port  # raises for a port that is not a number in 0-65535
    except ValueError as exc:
        raise ValueError(f"'{value}' is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"'{value}' is not an http:// or https:// URL")
    host = parts.hostname or ""
    if not host:
        raise ValueError(f"'{value}' has no host name")
    if port == 0 or (parts.netloc.rsplit("]", 1)[-1].count(":") == 1 and port is None):
        raise ValueError(f"'{value}' has no valid port (1-65535)")
    if "[" in parts.netloc:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"'{value}': '{host}' is not an IPv6 address") from None
    elif not _HOST_NAME.match(host):
        raise ValueError(f"'{value}': '{host}' is not a valid host name")
    return value


def check_root_path(value: str) -> str:
    """``value`` as a root path: empty, or "/" followed by path segments, no trailing slash."""
    path = value.strip().rstrip("/")
    if path and (not path.startswith("/") or any(c in path for c in "?#\\ ") or "//" in path):
        raise ValueError(f"'{value}' is not a path prefix such as /research")
    return path


def check_data_dir(path: Path) -> Path:
    """A folder Rabbithole can use (it exists and is writable, or can be created); ValueError saying why."""
    path = path.expanduser()
    absolute = path if path.is_absolute() else Path.cwd() / path
    if absolute.exists():
        if not absolute.is_dir():
            raise ValueError(f"{path} exists and is not a folder")
        if not os.access(absolute, os.W_OK | os.X_OK):
            raise ValueError(f"{path} is not writable")
        return path
    ancestor = absolute.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ValueError(f"{path} cannot be created: {ancestor} is a file, not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise ValueError(f"{path} cannot be created: {ancestor} is not writable")
    return path


#: Host names a local server answers to whatever else is allowed.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def normalize_ollama_host(value: str) -> str:
    """Interpret OLLAMA_HOST as Ollama's own tools do: host, host:port or a URL. ValueError if malformed."""
    value = value.strip()
    if not value:
        return ""
    if "://" not in value:
        value = "http://" + value
    scheme, rest = value.split("://", 1)
    host = rest.rstrip("/")
    if ":" not in host.rsplit("]", 1)[-1]:
        host += ":443" if scheme == "https" else ":11434"
    if host.startswith("0.0.0.0"):
        host = "127.0.0.1" + host[len("0.0.0.0") :]
    return check_http_url(f"{scheme}://{host}")


def ollama_host_from_environment() -> str:
    """The Ollama address from $OLLAMA_HOST, else the default; ConfigurationError naming the variable."""
    raw = os.environ.get("OLLAMA_HOST", "")
    try:
        return normalize_ollama_host(raw) or DEFAULT_OLLAMA_HOST
    except ValueError as exc:
        raise ConfigurationError(f"invalid configuration:\n  OLLAMA_HOST: {exc}") from None
