"""Deal records ``gongzhu-deal/1`` and ``gongzhu-deal/2`` (R11; version 2 may name the board of
duplicate play a deal was dealt from, R8.1): writing, reading and re-checking them by replay.

May import ``gongzhu.rules``, ``gongzhu.formats`` and ``gongzhu.jsontext``; the rules core never imports
this package.
"""

from gongzhu.records.format import BOARD_FORMAT, FORMAT, RecordError, deal_to_record, dump_record
from gongzhu.records.read import (
    DealRecord,
    RecordedBoard,
    RecordTextError,
    load_records,
    parse_record,
    read_records,
)
from gongzhu.records.replay import CheckedDeal, check_file, check_records, replay, replay_states

__all__ = [
    "BOARD_FORMAT",
    "FORMAT",
    "CheckedDeal",
    "DealRecord",
    "RecordError",
    "RecordTextError",
    "RecordedBoard",
    "check_file",
    "check_records",
    "deal_to_record",
    "dump_record",
    "load_records",
    "parse_record",
    "read_records",
    "replay",
    "replay_states",
]
