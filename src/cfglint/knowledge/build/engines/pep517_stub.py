"""A stand-in PEP 517 build backend that only answers the metadata hooks, from the sdist's own
``PKG-INFO``.

``pip download`` prepares an sdist's metadata before it saves the file, which runs the
project's build backend (for vLLM: its ``setup.py``, which imports torch and configures a CUDA
build). :mod:`.fetch` puts this file on ``PYTHONPATH`` as ``setuptools.build_meta`` (and the other
common backend names) with ``--no-build-isolation``, so pip runs these functions instead: they
read two lines of ``PKG-INFO`` and run no code of the engine. Building is refused.

Standard library only: pip imports this file in its own subprocess.
"""

import os

__all__ = ["get_requires_for_build_wheel", "get_requires_for_build_sdist", "prepare_metadata_for_build_wheel",
           "build_wheel", "build_sdist"]


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def read_pkg_info(path="PKG-INFO"):
    """(name, version) from the header of a PKG-INFO file."""
    with open(path, encoding="utf-8") as f:
        head = f.read().split("\n\n", 1)[0]
    fields = {}
    for line in head.splitlines():
        if ":" in line and not line.startswith((" ", "\t")):
            k, v = line.split(":", 1)
            fields.setdefault(k.strip(), v.strip())
    return fields["Name"], fields["Version"]


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    name, version = read_pkg_info()
    d = os.path.join(metadata_directory, f"{name.replace('-', '_')}-{version}.dist-info")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n")
    return os.path.basename(d)


def build_wheel(*args, **kwargs):
    raise RuntimeError("cfglint stand-in build backend: metadata only, nothing is built")


build_sdist = build_wheel


class _Legacy:
    get_requires_for_build_wheel = staticmethod(get_requires_for_build_wheel)
    get_requires_for_build_sdist = staticmethod(get_requires_for_build_sdist)
    prepare_metadata_for_build_wheel = staticmethod(prepare_metadata_for_build_wheel)
    build_wheel = staticmethod(build_wheel)
    build_sdist = staticmethod(build_sdist)


__legacy__ = _Legacy()
