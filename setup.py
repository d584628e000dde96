"""Build hook for the C fast paths (``gongzhu.rules._fastplay`` for one deck, ``_fastplay2`` for
two decks); everything else is in pyproject.toml."""

from setuptools import Extension, setup

_COMMON = ["src/gongzhu/rules/_fastcommon.h"]

setup(
    ext_modules=[
        Extension(
            "gongzhu.rules._fastplay",
            sources=["src/gongzhu/rules/_fastplay.c"],
            depends=_COMMON,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "gongzhu.rules._fastplay2",
            sources=["src/gongzhu/rules/_fastplay2.c"],
            depends=_COMMON,
            extra_compile_args=["-O2"],
        ),
    ]
)
