"""What the commands that read a file of deal records (``gongzhu replay``, ``gongzhu analyze``)
share: the source FILE names (``-``: standard input, read as bytes so that a line that is not
UTF-8 is named as such) and the one line on stderr, with its exit status, when it fails.

Exit statuses: 2 when the source cannot be read (missing, a directory, closed standard input, a
line that is not UTF-8 or longer than 1 MiB), 1 at a bad record or when there is none.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO

from gongzhu.records.format import RecordError
from gongzhu.records.read import RecordTextError

__all__ = ["Source", "no_records", "read_failure", "records_source", "shown_name"]

Source = Path | IO[bytes] | IO[str]


def shown_name(name: str) -> str:
    """FILE as the messages name it."""
    return "stdin" if name == "-" else name


def records_source(command: str, name: str) -> Source | None:
    """The source FILE names; None, after saying why on stderr, when standard input is closed."""
    if name != "-":
        return Path(name)
    if sys.stdin is None:
        print(f"gongzhu {command}: cannot read stdin: standard input is closed", file=sys.stderr)
        return None
    return getattr(sys.stdin, "buffer", sys.stdin)


def read_failure(command: str, name: str, error: RecordError | OSError) -> int:
    """Say on stderr, in one line, why reading FILE failed; the exit status.  A closed standard
    output (:class:`BrokenPipeError`) is raised again: :mod:`gongzhu.cli.main` handles it."""
    shown = shown_name(name)
    if isinstance(error, BrokenPipeError):
        raise error
    if isinstance(error, RecordTextError):
        print(f"gongzhu {command}: cannot read {shown}: {error}", file=sys.stderr)
        return 2
    if isinstance(error, RecordError):
        print(f"gongzhu {command}: {shown}: {error}", file=sys.stderr)
        return 1
    print(f"gongzhu {command}: cannot read {shown}: {error.strerror or error}", file=sys.stderr)
    return 2


def no_records(command: str, name: str) -> int:
    """Say on stderr that FILE holds no deal record; the exit status."""
    print(f"gongzhu {command}: no deal records in {shown_name(name)}", file=sys.stderr)
    return 1
