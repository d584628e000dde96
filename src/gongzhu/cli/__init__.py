"""The ``gongzhu`` command line: one module per sub-command, dispatched by :mod:`gongzhu.cli.main`;
what several share: their words (:mod:`gongzhu.cli.text`) and the reading of a file of deal
records (:mod:`gongzhu.cli.records`).

May import everything else in ``gongzhu``; nothing imports it.
"""
