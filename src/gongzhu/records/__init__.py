"""Deal records ``gongzhu-deal/1`` (R11): writing, reading and re-checking them by replay.

May import ``gongzhu.rules``, ``gongzhu.formats`` and ``gongzhu.jsontext``; the rules core never imports
this package.
"""

from gongzhu.records.format import FORMAT, RecordError, deal_to_record, dump_record
from gongzhu.records.read import DealRecord, RecordTextError, load_records, parse_record, read_records
from gongzhu.records.replay import CheckedDeal, check_file, check_records, replay, replay_states

__all__ = [
    "FORMAT", "CheckedDeal", "DealRecord", "RecordError", "RecordTextError", "check_file", "check_records",
    "deal_to_record", "dump_record", "load_records", "parse_record", "read_records", "replay",
    "replay_states",
]
