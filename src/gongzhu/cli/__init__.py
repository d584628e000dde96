"""The ``gongzhu`` command line: one module per sub-command, dispatched by :mod:`gongzhu.cli.main`.

May import everything else in ``gongzhu``; nothing imports it.
"""
