"""Learning from our own search: self-play data from the expert, and the training of the learned
player's network.

- :mod:`gongzhu.learning.data` — the expert plays deals against itself and every decision is kept
  as the seat's observation vector, its action mask and the expert's estimated value of every
  legal action (:mod:`gongzhu.players.features`), reproducible from a seed;
  ``python -m gongzhu.learning.data``.
- :mod:`gongzhu.learning.train` — trains the policy/value network (:mod:`gongzhu.players.network`)
  on that data with PyTorch and writes its weights for the numpy runtime;
  ``python -m gongzhu.learning.train``.  Needs the ``train`` extra (``pip install
  'gongzhu[train]'``: PyTorch, Matplotlib for the learning curve); nothing outside this module
  imports PyTorch.
- :mod:`gongzhu.learning.regret` — where a network gives up points against the expert's values,
  by kind of decision and part of the deal; ``python -m gongzhu.learning.regret``.
- :mod:`gongzhu.learning.average` — networks of one shape averaged weight by weight into one of
  the same size; ``python -m gongzhu.learning.average``.

This package imports the rules core, the search, the players and the arena's seeding (and numpy),
nothing from the server, the page or the command line.
"""
