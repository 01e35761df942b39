# Rabbithole: the API serving the built web app. Two stages: Node builds frontend/dist, then a slim Python image
# installs the package (torch as its CPU build: no CUDA libraries; Ollama does the GPU work) and the build.
#   docker compose up -d        (see docs/deployment.md)

FROM node:20-bookworm-slim AS web
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm AS app
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    ANONYMIZED_TELEMETRY=False
WORKDIR /app
# torch first, from PyTorch's CPU index: an unpinned torch from PyPI pulls several GB of CUDA libraries.
RUN pip install --index-url https://download.pytorch.org/whl/cpu "torch==2.13.0"
COPY pyproject.toml README.md ./
COPY backend/ backend/
RUN pip install . && useradd --create-home --uid 1000 rabbithole \
    && mkdir -p /data /kb && chown rabbithole:rabbithole /data /kb
COPY --from=web /src/frontend/dist /app/web
USER rabbithole
ENV RABBITHOLE_SERVER__WEB_DIR=/app/web \
    RABBITHOLE_STORAGE__DATA_DIR=/data \
    RABBITHOLE_KB_DIR=/kb \
    RABBITHOLE_SERVER__HOST=0.0.0.0 \
    RABBITHOLE_SERVER__PORT=8000
EXPOSE 8000
# /health needs the bearer token like every API path; 200 also while degraded (e.g. a model not pulled yet).
HEALTHCHECK --interval=30s --timeout=10s --start-period=120s --retries=3 CMD python -c "import os, urllib.request; \
urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:8000/health', \
headers={'Authorization': 'Bearer ' + os.environ['RABBITHOLE_SERVER__TOKEN']}), timeout=8)"
CMD ["rabbithole", "serve"]
