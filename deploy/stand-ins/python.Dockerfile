# Debian bookworm's Python 3.11 in place of the official python:3.11-slim-bookworm, for the
# Dockerfile at the repository's root: `--build-arg PYTHON_IMAGE=<this image>`.  The
# certificates in ca-certificates/ (a build context's folder, may be empty) are trusted too, by
# the system and by pip: a machine whose way out is through a TLS-inspecting proxy puts its CA
# there (tests/helpers/containers.py copies the machine's /usr/local/share/ca-certificates).
ARG DEBIAN_IMAGE=debian:bookworm-slim
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s /usr/bin/python3 /usr/local/bin/python
COPY ca-certificates/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt
CMD ["python3"]
