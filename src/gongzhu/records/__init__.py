"""Deal records ``gongzhu-deal/1`` (R11): writing, reading and re-checking them by replay.

May import ``gongzhu.rules``; the rules core never imports this package.
"""
