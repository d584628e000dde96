"""The command line as a test runs it: ``gongzhu play`` in the test process."""

from __future__ import annotations

import argparse

from gongzhu.cli import play as play_cli

__all__ = ["run_play"]

def run_play(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gongzhu")
    play_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["play", *argv])
    code: int = args.run(args)
    return code
