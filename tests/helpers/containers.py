"""Container images and the deployed set (``deploy/compose.yaml``) for the tests and benchmarks
that run them: the container engine and its compose command, local stand-ins for the official
images (``deploy/stand-ins/``, built on a Debian root file system made with ``debootstrap``, for
machines that reach Debian's mirror and PyPI but no image registry), gongzhu's image built from
the working tree, and :class:`ComposeSet`, one compose project on loopback ports.

Like :mod:`helpers.servers`, this module imports nothing but the standard library, so that
``benchmarks/deployed.py`` can use it.  :func:`missing` says why containers cannot run here (None
when they can); the tests skip with that reason, or fail under ``CI``.
"""

from __future__ import annotations

import hashlib
import os
import random
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["BASE", "ComposeSet", "build_image", "compose_command", "debian_base", "docker", "free_port",
           "missing", "stand_in", "stand_ins", "tree_copy",
           "untagged_images"]

ROOT = Path(__file__).resolve().parents[2]
STAND_INS = ROOT / "deploy" / "stand-ins"
#: The Debian bookworm root file system every stand-in is built on (kept between runs).
BASE = "gongzhu-test/bookworm"
#: Where that root file system comes from.
MIRROR = "http://deb.debian.org/debian"
#: The machine's own extra CA certificates, trusted in the Python stand-in (a TLS-inspecting way out).
LOCAL_CAS = Path("/usr/local/share/ca-certificates")


def docker(*args: str, timeout: float = 600, check: bool = True, input: bytes | None = None,
           env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``docker ARGS`` (the legacy builder where the CLI has no buildx), its output as text."""
    return _run(["docker", *args], timeout=timeout, check=check, input=input, env=env)


def _run(command: Sequence[str], *, timeout: float, check: bool = True, input: bytes | None = None,
         env: Mapping[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **_builder_env(), **(env or {})}
    done = subprocess.run(list(command), input=input, capture_output=True, timeout=timeout, env=full, cwd=cwd)
    result = subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(errors="replace"),
                                         done.stderr.decode(errors="replace"))
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed (status {done.returncode}):\n{result.stdout[-3000:]}\n"
                           f"{result.stderr[-3000:]}")
    return result


_buildkit: dict[str, str] | None = None


def _builder_env() -> dict[str, str]:
    """``DOCKER_BUILDKIT=0`` where the docker CLI has no buildx plugin (else it refuses to build)."""
    global _buildkit
    if _buildkit is None:
        try:
            found = subprocess.run(["docker", "buildx", "version"], capture_output=True, timeout=30)
            has_buildx = found.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            has_buildx = False
        _buildkit = {} if has_buildx else {"DOCKER_BUILDKIT": "0", "COMPOSE_DOCKER_CLI_BUILD": "0"}
    return _buildkit


def compose_command() -> list[str] | None:
    """``docker compose`` (the CLI plugin) where it works, else ``docker-compose`` (v1, Debian's
    package), else None."""
    for command in (["docker", "compose"], ["docker-compose"]):
        if shutil.which(command[0]) is None:
            continue
        try:
            if subprocess.run([*command, "version"], capture_output=True, timeout=30).returncode == 0:
                return command
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


def missing() -> str | None:
    """Why the container tests cannot run on this machine, or None: no docker client, no engine
    answering, no compose command, or no way to make the Debian base (no image of it yet, and not
    root with ``debootstrap``)."""
    if shutil.which("docker") is None:
        return "no docker client on the PATH (Debian: apt-get install docker.io)"
    try:
        info = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"the docker engine does not answer: {e}"
    if info.returncode != 0:
        said = info.stderr.decode(errors="replace").strip()[:200]
        return f"the docker engine does not answer (`docker info`: {said})"
    if compose_command() is None:
        return "neither `docker compose` nor `docker-compose` works (Debian: apt-get install docker-compose)"
    if not _has_image(BASE) and (os.geteuid() != 0 or shutil.which("debootstrap") is None):
        return f"no image {BASE}, and it takes root and debootstrap to make it (apt-get install debootstrap)"
    return None


def _has_image(tag: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", tag], capture_output=True, timeout=60).returncode == 0


def debian_base() -> str:
    """The Debian bookworm image the stand-ins build on: ``debootstrap --variant=minbase`` into a
    temporary folder, imported as :data:`BASE` (made once, kept for later runs)."""
    if not _has_image(BASE):
        with tempfile.TemporaryDirectory(prefix="gongzhu-rootfs-") as folder:
            root = Path(folder) / "bookworm"
            _run(["debootstrap", "--variant=minbase", "bookworm", str(root), MIRROR], timeout=900)
            tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
            try:
                imported = subprocess.run(["docker", "import", "-", BASE], stdin=tar.stdout, capture_output=True,
                                          timeout=600)
            finally:
                assert tar.stdout is not None
                tar.stdout.close()
                tar.wait(60)
            if imported.returncode != 0:
                raise RuntimeError(f"docker import failed: {imported.stderr.decode(errors='replace')}")
    return BASE


def stand_in(name: str) -> str:
    """The local stand-in for the official image ``name`` (python, postgres, redis, caddy), built
    from ``deploy/stand-ins/NAME.Dockerfile`` on :func:`debian_base` and tagged with a hash of
    what it is built from, so a later run reuses it and a changed Dockerfile makes a new one."""
    files = sorted(p for p in STAND_INS.iterdir() if p.is_file() and p.suffix != ".md")
    cas = sorted(LOCAL_CAS.glob("*.crt")) if name == "python" and LOCAL_CAS.is_dir() else []
    digest = hashlib.sha256()
    for path in [*files, *cas]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    tag = f"gongzhu-test/{name}:{digest.hexdigest()[:12]}"
    if _has_image(tag):
        return tag
    base = debian_base()
    with tempfile.TemporaryDirectory(prefix=f"gongzhu-{name}-") as folder:
        context = Path(folder)
        for path in files:
            shutil.copy(path, context / path.name)
        (context / "ca-certificates").mkdir()
        for path in cas:
            shutil.copy(path, context / "ca-certificates" / path.name)
        dockerfile = str(context / f"{name}.Dockerfile")
        docker("build", "--build-arg", f"DEBIAN_IMAGE={base}", "-t", tag, "-f", dockerfile, str(context), timeout=900)
    for old in docker("images", "--format", "{{.Repository}}:{{.Tag}}", f"gongzhu-test/{name}").stdout.split():
        if old != tag:  # an earlier stand-in, from files since changed
            docker("rmi", old, check=False)
    return tag


def stand_ins() -> dict[str, str]:
    """Every stand-in (:func:`stand_in`) by name, those missing built side by side."""
    from concurrent.futures import ThreadPoolExecutor

    debian_base()
    names = ("python", "postgres", "redis", "caddy")
    with ThreadPoolExecutor(len(names)) as pool:
        return dict(zip(names, pool.map(stand_in, names), strict=True))


def tree_copy(destination: Path, repository: Path = ROOT) -> Path:
    """The files of the working tree that a clean clone would hold once committed (tracked, and
    untracked ones not ignored: ``git ls-files --cached --others --exclude-standard``), copied to
    ``destination``; symbolic links stay links."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=repository,
                            capture_output=True, check=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = repository / name
        if not (source.exists() or source.is_symlink()):
            continue  # deleted in the working tree
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    return destination


def build_image(context: Path, tag: str, **build_args: str) -> str:
    """``docker build`` of the Dockerfile at ``context``'s root, tagged ``tag``."""
    args = [a for k, v in build_args.items() for a in ("--build-arg", f"{k}={v}")]
    docker("build", *args, "-t", tag, str(context), timeout=1200)
    return tag


def untagged_images() -> set[str]:
    """The ids of the images without a tag now (a build's builder stage is one, with the legacy
    builder)."""
    return set(docker("images", "--quiet", "--no-trunc", "--filter", "dangling=true").stdout.split())


def free_port() -> int:
    """A loopback TCP port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ComposeSet:
    """One project of ``deploy/compose.yaml`` (name ``gongzhu-test-XXXX``): its proxy published on
    loopback ports, the stand-in images (or ``images`` given), gongzhu's image ``app``, a network
    of its own (a random 172.31.200-249.0/24) and a random database password.  :meth:`up` starts
    it, :meth:`down` removes it with its volumes; ``base`` and ``ws_base`` are the proxy's HTTPS
    and WSS addresses (``https://localhost:PORT``), ``env`` what compose is run with."""

    def __init__(self, app: str, images: Mapping[str, str], *, replicas: int = 2) -> None:
        command = compose_command()
        if command is None:
            raise RuntimeError("no compose command")
        self.project = f"gongzhu-test-{secrets.token_hex(4)}"
        self.command = [*command, "-p", self.project, "-f", str(ROOT / "deploy" / "compose.yaml")]
        self.https_port, self.http_port = free_port(), free_port()
        self.base = f"https://localhost:{self.https_port}"
        self.ws_base = f"wss://localhost:{self.https_port}"
        self.env = {
            "GONGZHU_IMAGE": app,
            "GONGZHU_POSTGRES_IMAGE": images["postgres"],
            "GONGZHU_REDIS_IMAGE": images["redis"],
            "GONGZHU_CADDY_IMAGE": images["caddy"],
            "GONGZHU_PYTHON_IMAGE": images["python"],
            "GONGZHU_PUBLISH": "127.0.0.1",
            "GONGZHU_HTTPS_PORT": str(self.https_port),
            "GONGZHU_HTTP_PORT": str(self.http_port),
            "GONGZHU_ORIGIN": self.base,
            "GONGZHU_SUBNET": f"172.31.{random.randrange(200, 250)}.0/24",
            "GONGZHU_DB_PASSWORD": secrets.token_hex(12),
            "GONGZHU_SERVE_REPLICAS": str(replicas),
        }

    def run(self, *args: str, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess[str]:
        """``docker compose -p PROJECT -f deploy/compose.yaml ARGS`` with :attr:`env`."""
        return _run([*self.command, *args], timeout=timeout, check=check, env=self.env, cwd=ROOT / "deploy")

    def up(self, timeout: float = 300) -> None:
        self.run("up", "-d", "--no-build", timeout=timeout)

    def down(self) -> None:
        self.run("down", "-v", "--remove-orphans", "--timeout", "5", timeout=300, check=False)

    def containers(self, service: str) -> list[str]:
        """The ids of ``service``'s containers (one a replica), in a stable order."""
        return sorted(self.run("ps", "-q", service).stdout.split())

    def exec(self, service: str, *command: str, timeout: float = 60) -> str:
        """``command`` run in (the first container of) ``service``; its standard output."""
        return self.run("exec", "-T", service, *command, timeout=timeout).stdout

    def logs(self, tail: int = 80) -> str:
        return self.run("logs", "--no-color", "--tail", str(tail), timeout=120, check=False).stdout

    def root_certificate(self, destination: Path, timeout: float = 60) -> Path:
        """The proxy's internal CA root (``tls internal``), written to ``destination`` once
        Caddy has made it."""
        path = "/data/caddy/pki/authorities/local/root.crt"
        deadline = time.monotonic() + timeout
        while True:
            found = self.run("exec", "-T", "proxy", "cat", path, check=False)
            if found.returncode == 0 and "BEGIN CERTIFICATE" in found.stdout:
                destination.write_text(found.stdout)
                return destination
            if time.monotonic() > deadline:
                raise RuntimeError(f"the proxy made no CA root in {timeout:.0f} s:\n{self.logs()}")
            time.sleep(0.5)

    def node_of(self, container: str) -> str:
        """The node id (``GET /api/node``) of the serve process in ``container``, asked inside it."""
        code = ("import json, urllib.request; print(json.load(urllib.request.urlopen("
                "'http://127.0.0.1:8000/api/node', timeout=5))['node'])")
        return docker("exec", container, "python", "-c", code, timeout=60).stdout.strip()

    def redis(self, *command: str) -> str:
        """``redis-cli COMMAND`` in the Redis service."""
        return self.exec("redis", "redis-cli", *command).strip()

    def __enter__(self) -> ComposeSet:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.down()
