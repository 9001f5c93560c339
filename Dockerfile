# One image for web, worker and beat. Bots run in the sandbox inside the worker container only, which
# needs the privileges listed in docker-compose.yml to create namespaces and cgroups; libseccomp gives the
# sandbox its syscall filter (the sandbox refuses to run bots without it). The web container runs with
# no privileges at all and never starts a bot (BOTS_SANDBOX_FORBIDDEN in docker-compose.yml).
FROM python:3.11-slim

RUN apt-get update \
    && apt-get install -y --no-install-recommends libseccomp2 \
    && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VAR_DIR=/var/lib/ladder
WORKDIR /app
COPY pyproject.toml README.md gunicorn.conf.py ./
COPY engines engines
COPY bots bots
COPY ladder ladder
COPY workers workers
COPY manage.py ./
RUN pip install --no-cache-dir . \
    && mkdir -p "$VAR_DIR" \
    && SECRET_KEY=build-only python manage.py collectstatic --noinput

EXPOSE 8000
# Workers, bind address and timeouts come from the environment (gunicorn.conf.py).
CMD ["gunicorn", "ladder.wsgi:application"]
