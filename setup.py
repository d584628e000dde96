"""Build hook for the C fast paths (``gongzhu.rules._fastplay`` for one deck, ``_fastplay2`` for
two decks); everything else is in pyproject.toml.

Both are optional: where they cannot be compiled gongzhu installs without them, plays on its
Python rules (``gongzhu.rules.deal.C_BOARD`` is False, ``gongzhu --version`` says so) and the
players that search (expert, flatmc) refuse to start."""

from setuptools import Extension, setup

_COMMON = ["src/gongzhu/rules/_fastcommon.h"]
_SOLVER = ["src/gongzhu/rules/_fastsolve.h"]
_ENV = ["src/gongzhu/rules/_fastenv.h"]

setup(
    ext_modules=[
        Extension(
            "gongzhu.rules._fastplay",
            sources=["src/gongzhu/rules/_fastplay.c"],
            depends=[*_COMMON, *_SOLVER, *_ENV],
            extra_compile_args=["-O2"],
            optional=True,
        ),
        Extension(
            "gongzhu.rules._fastplay2",
            sources=["src/gongzhu/rules/_fastplay2.c"],
            depends=_COMMON,
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ]
)
