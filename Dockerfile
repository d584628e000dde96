# gongzhu's server as a container image (docs/deploy.md, One command):
#
#     docker build -t gongzhu .
#     docker run --rm -p 127.0.0.1:8000:8000 gongzhu          # one process on a SQLite file
#
# Two stages: the builder compiles the C fast paths (gcc, Python's headers) and installs gongzhu
# with its `cluster` extra (PostgreSQL, Redis) into a virtual environment; the final image holds
# that environment and Python, no compiler, and runs as the unprivileged user `gongzhu`.
# PYTHON_IMAGE is the base of both: an official Python image on Debian, or any Debian image whose
# python3 is 3.11 or newer and has the venv module (deploy/stand-ins/python.Dockerfile).
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS builder
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc libc6-dev \
 && (python3 -c "import os, sysconfig; assert os.path.exists(sysconfig.get_paths()['include'] + '/Python.h')" \
     || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-dev) \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/gongzhu \
 && /opt/gongzhu/bin/pip install --no-cache-dir --disable-pip-version-check --upgrade pip setuptools wheel
WORKDIR /src
# The dependencies first (their own layer, kept while only gongzhu's code changes) ...
COPY pyproject.toml ./
RUN python3 -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
print('\n'.join(p['dependencies'] + p['optional-dependencies']['cluster']))" > /tmp/requirements.txt \
 && /opt/gongzhu/bin/pip install --no-cache-dir --disable-pip-version-check -r /tmp/requirements.txt
# ... then gongzhu itself, its C fast paths compiled (the image refuses to build without them).
COPY . .
RUN /opt/gongzhu/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps '.[cluster]' \
 && /opt/gongzhu/bin/gongzhu --version | tee /dev/stderr | grep -q "C fast paths built"

FROM ${PYTHON_IMAGE}
COPY --from=builder /opt/gongzhu /opt/gongzhu
RUN useradd --system --create-home --home-dir /var/lib/gongzhu --shell /usr/sbin/nologin gongzhu
ENV PATH=/opt/gongzhu/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    GONGZHU_HOST=0.0.0.0 \
    GONGZHU_PORT=8000
USER gongzhu
WORKDIR /var/lib/gongzhu
EXPOSE 8000
# Alive: the process answers HTTP (GET /healthz, docs/operations.md; an error status is an answer
# too). Whether it can serve (its database, Redis) is /readyz's to say, to the balancer.
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 \
  CMD ["python3", "-c", "import os, urllib.request, urllib.error\ntry: urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('GONGZHU_PORT', '8000'), timeout=2)\nexcept urllib.error.HTTPError: pass"]
ENTRYPOINT ["gongzhu"]
CMD ["serve"]
