"""docker-compose.yml, its GPU override and the Dockerfile hold together: the services, their health checks
and volumes, settings that exist, a token the server requires off loopback, the web app built into the image.
(`docker compose config -q` accepting the files is checked by hand, see docs/deployment.md.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from rabbithole.core.config import Settings

ROOT = Path(__file__).resolve().parents[2]


def load_yaml(name: str) -> dict[str, Any]:
    data = yaml.safe_load((ROOT / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def setting_exists(variable: str) -> bool:
    """Whether RABBITHOLE_A__B names a field of Settings (nested groups by `__`)."""
    model: type[BaseModel] = Settings
    parts = variable.removeprefix("RABBITHOLE_").lower().split("__")
    for index, part in enumerate(parts):
        field = model.model_fields.get(part)
        if field is None:
            return False
        annotation = field.annotation
        if index < len(parts) - 1:
            if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
                return False
            model = annotation
    return True


def default_of(value: str) -> str:
    """A compose value with `${VAR:-default}` / `${VAR:?message}` replaced as compose would without VAR
    (the required one by a placeholder as long as a token must be)."""
    value = re.sub(r"\$\{[A-Z_]+:\?[^}]*\}", "required-value-placeholder", value)
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)


def test_compose_has_the_api_the_proxy_and_ollama_with_health_checks_and_volumes() -> None:
    compose = load_yaml("docker-compose.yml")
    services = compose["services"]
    assert set(services) == {"api", "proxy", "ollama"}
    declared = set(compose["volumes"])
    for name, service in services.items():
        health = service["healthcheck"]
        assert health["test"][0] == "CMD" and {"interval", "timeout", "retries"} <= set(health), name
        for mount in service["volumes"]:
            source, target = mount.split(":")[:2]
            assert target.startswith("/"), mount
            assert (ROOT / source).is_file() if source.startswith("./") else source in declared, mount
    assert services["api"]["depends_on"]["ollama"]["condition"] == "service_healthy"
    assert services["proxy"]["depends_on"]["api"]["condition"] == "service_healthy"
    assert "ports" not in services["api"]  # reached through the proxy only
    assert services["ollama"]["image"].startswith("ollama/ollama")
    assert "ollama-models:/root/.ollama" in services["ollama"]["volumes"]
    assert {"ollama-models", "rabbithole-data", "rabbithole-kb"} == declared


def test_the_api_service_sets_real_settings_and_requires_a_token() -> None:
    api = load_yaml("docker-compose.yml")["services"]["api"]
    env: dict[str, str] = api["environment"]
    unknown = [name for name in env if name.startswith("RABBITHOLE_") and not setting_exists(name)]
    assert unknown == []
    assert env["RABBITHOLE_SERVER__HOST"] == "0.0.0.0"
    assert env["RABBITHOLE_LLM__BASE_URL"] == "http://ollama:11434"
    assert re.fullmatch(r"\$\{RABBITHOLE_TOKEN:\?[^}]+\}", env["RABBITHOLE_SERVER__TOKEN"])
    data = env["RABBITHOLE_STORAGE__DATA_DIR"]
    assert f"rabbithole-data:{data}" in api["volumes"]
    assert f"rabbithole-kb:{env['RABBITHOLE_KB_DIR']}" in api["volumes"]
    defaults = {name: default_of(value) for name, value in env.items()}
    server = Settings.model_validate(
        {
            "server": {
                "host": defaults["RABBITHOLE_SERVER__HOST"],
                "token": defaults["RABBITHOLE_SERVER__TOKEN"],
            }
        }
    ).server
    server.require_token_off_loopback()
    assert (
        "/health" in " ".join(api["healthcheck"]["test"])
        and "Authorization" in api["healthcheck"]["test"][-1]
    )


def test_the_proxy_adds_the_token_and_streams_events() -> None:
    proxy = load_yaml("docker-compose.yml")["services"]["proxy"]
    assert proxy["environment"]["RABBITHOLE_TOKEN"].startswith("${RABBITHOLE_TOKEN:?")
    assert proxy["ports"] == ["${RABBITHOLE_PUBLISH:-127.0.0.1:8000}:80"]
    template = (ROOT / "deploy/nginx/default.conf.template").read_text(encoding="utf-8")
    assert 'proxy_set_header Authorization "Bearer ${RABBITHOLE_TOKEN}";' in template
    assert "proxy_pass http://api:8000;" in template and "proxy_buffering off;" in template


def test_the_gpu_override_reserves_nvidia_devices_for_ollama() -> None:
    gpu = load_yaml("docker-compose.gpu.yml")["services"]
    assert set(gpu) == {"ollama"}
    devices = gpu["ollama"]["deploy"]["resources"]["reservations"]["devices"]
    assert devices == [{"driver": "nvidia", "count": "all", "capabilities": ["gpu"]}]


def test_the_dockerfile_builds_the_web_app_and_serves_it() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    stages = re.findall(r"^FROM (\S+) AS (\w+)$", dockerfile, re.MULTILINE)
    assert [alias for _, alias in stages] == ["web", "app"] and stages[0][0].startswith("node:")
    assert "RUN npm ci" in dockerfile and "RUN npm run build" in dockerfile
    assert "COPY --from=web /src/frontend/dist /app/web" in dockerfile
    assert "RABBITHOLE_SERVER__WEB_DIR=/app/web" in dockerfile
    assert "download.pytorch.org/whl/cpu" in dockerfile
    compose_env = load_yaml("docker-compose.yml")["services"]["api"]["environment"]
    assert compose_env["RABBITHOLE_SERVER__WEB_DIR"] == "/app/web"
    for copied in re.findall(r"^COPY (?!--from)(\S+)", dockerfile, re.MULTILINE):
        assert (ROOT / copied).exists() or copied.startswith("frontend/"), copied
