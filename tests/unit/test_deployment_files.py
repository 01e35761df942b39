"""docker-compose.yml, its GPU override and the Dockerfile hold together: the services, their health checks
and volumes, settings that exist, a token the server requires off loopback, the web app built into the image;
the `team` profile's PostgreSQL, Chroma server, three workers sharing one database, one vector store, one
token and one data folder, and the nginx balancer in front of them.
(`docker compose config -q` accepting the files is checked by hand, see docs/deployment.md.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from pydantic import BaseModel

from rabbithole.core.config import ENV_PREFIX, Settings, unknown_variables
from rabbithole.core.environment import values_from_variables

ROOT = Path(__file__).resolve().parents[2]
TEAM_WORKERS = ("api-1", "api-2", "api-3")
#: a compose variable: ${NAME}, ${NAME:-default}, ${NAME:?message}
COMPOSE_VARIABLE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<rule>:[-?])?[^}]*\}")


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


def profiles_of(service: dict[str, Any]) -> list[str]:
    profiles = service.get("profiles", [])
    assert isinstance(profiles, list)
    return profiles


def test_compose_has_the_api_the_proxy_and_ollama_with_health_checks_and_volumes() -> None:
    compose = load_yaml("docker-compose.yml")
    services = compose["services"]
    # `docker compose up` without a profile: the single server, as before the team profile
    default = {name for name, service in services.items() if not profiles_of(service)}
    assert default == {"api", "proxy", "ollama"}
    declared = set(compose["volumes"])
    for name, service in services.items():
        health = service["healthcheck"]
        assert health["test"][0] == "CMD" and {"interval", "timeout", "retries"} <= set(health), name
        for mount in service.get("volumes", []):
            source, target = mount.split(":")[:2]
            assert target.startswith("/"), mount
            assert (ROOT / source).is_file() if source.startswith("./") else source in declared, mount
    assert services["api"]["depends_on"]["ollama"]["condition"] == "service_healthy"
    assert services["proxy"]["depends_on"]["api"]["condition"] == "service_healthy"
    assert "ports" not in services["api"]  # reached through the proxy only
    assert services["ollama"]["image"].startswith("ollama/ollama")
    assert "ollama-models:/root/.ollama" in services["ollama"]["volumes"]
    team_volumes = {"team-data", "team-kb", "team-postgres", "team-chroma"}
    assert {"ollama-models", "rabbithole-data", "rabbithole-kb"} | team_volumes == declared


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


def compose_variables(value: object) -> dict[str, str]:
    """The variables a compose value reads, each with its rule: ':?' (required), ':-' (a default) or ''."""
    found: dict[str, str] = {}
    if isinstance(value, dict):
        for inner in value.values():
            found.update(compose_variables(inner))
    elif isinstance(value, list):
        for inner in value:
            found.update(compose_variables(inner))
    elif isinstance(value, str):
        for match in COMPOSE_VARIABLE.finditer(value):
            found[match["name"]] = match["rule"] or ""
    return found


def team_services() -> dict[str, dict[str, Any]]:
    services = load_yaml("docker-compose.yml")["services"]
    return {name: service for name, service in services.items() if "team" in profiles_of(service)}


def test_a_plain_compose_up_needs_no_variable_of_the_team_profile() -> None:
    """compose interpolates the whole file before it drops the services of profiles not asked for, so a
    required variable (`:?`) in a team service would stop `docker compose up` of the single server."""
    services = load_yaml("docker-compose.yml")["services"]
    default_required = {
        name
        for service in services.values()
        if not profiles_of(service)
        for name, rule in compose_variables(service).items()
        if rule == ":?"
    }
    for name, service in team_services().items():
        required = {var for var, rule in compose_variables(service).items() if rule == ":?"}
        assert required <= default_required, name


def test_every_variable_the_compose_file_reads_draws_no_unknown_setting_warning() -> None:
    """A `.env` beside docker-compose.yml is read by the CLI too: what compose reads must be known there."""
    read = compose_variables(load_yaml("docker-compose.yml")["services"])
    ours = {name for name in read if name.startswith(ENV_PREFIX)}
    assert ours >= {"RABBITHOLE_TOKEN", "RABBITHOLE_DB_PASSWORD"}
    assert unknown_variables(ours) == []


def test_the_team_profile_has_postgres_chroma_three_workers_and_a_balancer() -> None:
    services = load_yaml("docker-compose.yml")["services"]
    team = team_services()
    assert set(team) == {"postgres", "chroma", *TEAM_WORKERS, "balancer"}
    assert profiles_of(services["ollama"]) == []  # the workers use the single server's Ollama

    postgres = team["postgres"]
    assert re.fullmatch(r"postgres:\d+[-\w.]*", postgres["image"])
    assert postgres["healthcheck"]["test"][1] == "pg_isready"
    assert "team-postgres:/var/lib/postgresql/data" in postgres["volumes"]
    assert compose_variables(postgres["environment"]["POSTGRES_PASSWORD"]) == {"RABBITHOLE_DB_PASSWORD": ":-"}

    chroma = team["chroma"]
    # the server from the workers' own image: its chromadb is the version their client has
    assert chroma["image"] == team["api-1"]["image"] == services["api"]["image"]
    assert chroma["command"][:2] == ["chroma", "run"]
    assert "/api/v2/heartbeat" in chroma["healthcheck"]["test"][-1]
    assert any(mount.startswith("team-chroma:") for mount in chroma["volumes"])

    for worker in TEAM_WORKERS:
        depends = team[worker]["depends_on"]
        assert {name: d["condition"] for name, d in depends.items()} == {
            "postgres": "service_healthy",
            "chroma": "service_healthy",
            "ollama": "service_healthy",
        }
        # the claims of runs tell workers apart by host name and pid: a fixed host name shared by the
        # containers of one service (--scale) would make a live worker look dead to another
        assert "hostname" not in team[worker]
        assert "ports" not in team[worker]  # reached through the balancer only
    for backend in ("postgres", "chroma"):
        assert "ports" not in team[backend], backend
    balancer = team["balancer"]
    assert {name: d["condition"] for name, d in balancer["depends_on"].items()} == dict.fromkeys(
        TEAM_WORKERS, "service_healthy"
    )
    assert balancer["ports"] == services["proxy"]["ports"]
    assert balancer["environment"]["RABBITHOLE_TOKEN"].startswith("${RABBITHOLE_TOKEN:?")


def test_the_team_workers_share_the_database_the_vectors_the_token_and_the_folders(tmp_path: Path) -> None:
    team = team_services()
    workers = [team[name] for name in TEAM_WORKERS]
    env: dict[str, str] = workers[0]["environment"]
    for worker in workers[1:]:
        assert worker["environment"] == env and worker["volumes"] == workers[0]["volumes"]
        assert worker["image"] == workers[0]["image"] and worker["healthcheck"] == workers[0]["healthcheck"]
    assert [name for name in env if name.startswith(ENV_PREFIX) and not setting_exists(name)] == []
    assert re.fullmatch(r"\$\{RABBITHOLE_TOKEN:\?[^}]+\}", env["RABBITHOLE_SERVER__TOKEN"])

    # the settings the workers start with, as compose fills the defaults in (the data folder is checked
    # below against the volumes: it is created and checked for writing when settings are validated)
    variables = {name: default_of(value) for name, value in env.items()}
    values = values_from_variables(Settings, variables, ENV_PREFIX)
    values["storage"]["data_dir"] = str(tmp_path)
    settings = Settings.model_validate(values)
    settings.server.require_token_off_loopback()

    database = urlsplit(settings.database.url)
    postgres = team["postgres"]["environment"]
    assert (database.hostname, database.port or 5432) == ("postgres", 5432)
    assert database.username == postgres["POSTGRES_USER"] and database.path == "/" + postgres["POSTGRES_DB"]
    password = compose_variables(postgres["POSTGRES_PASSWORD"])
    assert compose_variables(env["RABBITHOLE_DATABASE__URL"]) == password

    vectors = urlsplit(settings.vectors.url)
    command = team["chroma"]["command"]
    assert (vectors.hostname, str(vectors.port)) == ("chroma", command[command.index("--port") + 1])
    assert settings.llm.base_url == "http://ollama:11434"

    mounts = dict(mount.split(":")[:2] for mount in workers[0]["volumes"])
    assert mounts == {"team-data": env["RABBITHOLE_STORAGE__DATA_DIR"], "team-kb": env["RABBITHOLE_KB_DIR"]}
    assert "/health" in workers[0]["healthcheck"]["test"][-1]


def nginx_directives(text: str) -> list[list[str]]:
    """The directives of an nginx config, each as its words (comments dropped, blocks flattened)."""
    body = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    statements = re.split(r"[;{}]", body)
    return [statement.split() for statement in statements if statement.strip()]


def test_the_balancer_names_the_three_workers_and_streams_events_unbuffered() -> None:
    team = team_services()
    mount = next(m for m in team["balancer"]["volumes"] if m.startswith("./deploy/nginx/"))
    source, target = mount.split(":")[:2]
    assert target == "/etc/nginx/templates/default.conf.template"
    text = (ROOT / source).read_text(encoding="utf-8")
    directives = nginx_directives(text)

    upstream = re.search(r"upstream\s+(\w+)\s*\{([^}]*)\}", text)
    assert upstream is not None
    port = team["api-1"]["environment"]["RABBITHOLE_SERVER__PORT"]
    servers = [words[1] for words in nginx_directives(upstream[2]) if words[0] == "server"]
    assert servers == [f"{worker}:{port}" for worker in TEAM_WORKERS]
    # any worker serves any request: no stickiness of a client to one worker
    assert not {"ip_hash", "hash", "sticky"} & {words[0] for words in directives}
    assert ["proxy_pass", f"http://{upstream[1]}"] in directives

    assert ["proxy_buffering", "off"] in directives and ["proxy_cache", "off"] in directives
    read_timeout = next(words[1] for words in directives if words[0] == "proxy_read_timeout")
    assert re.fullmatch(r"\d+h|\d{4,}s?", read_timeout), read_timeout  # an hour or more: a run's stream
    assert 'proxy_set_header Authorization "Bearer ${RABBITHOLE_TOKEN}";' in text
    assert ["proxy_set_header", "X-Forwarded-Host", "$http_host"] in directives
    assert ["proxy_http_version", "1.1"] in directives
