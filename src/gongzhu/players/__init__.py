"""Computer players.  They choose exposures and plays for one seat of a
:class:`gongzhu.rules.Deal`.

May import ``gongzhu.rules``; the rules core never imports this package.
"""
