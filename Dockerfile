# One image for web, worker and beat. Bots run in the sandbox inside the worker container, which needs
# the privileges listed in docker-compose.yml to create namespaces and cgroups.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VAR_DIR=/var/lib/ladder
WORKDIR /app
# libseccomp compiles the bots' syscall filter; without it the sandbox refuses to run bots.
RUN apt-get update && apt-get install -y --no-install-recommends libseccomp2 && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY engines engines
COPY bots bots
COPY ladder ladder
COPY workers workers
COPY manage.py ./
RUN pip install --no-cache-dir . \
    && mkdir -p "$VAR_DIR" \
    && SECRET_KEY=build-only python manage.py collectstatic --noinput

EXPOSE 8000
CMD ["gunicorn", "ladder.wsgi:application", "-b", "0.0.0.0:8000", "-w", "3"]
