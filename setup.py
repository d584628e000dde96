"""Build hook for the C fast path (``gongzhu.rules._fastplay``); everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "gongzhu.rules._fastplay",
            sources=["src/gongzhu/rules/_fastplay.c"],
            extra_compile_args=["-O2"],
        )
    ]
)
