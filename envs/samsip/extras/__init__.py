"""Sam Sip's modules beyond the game skeleton: ``outs`` (the chance that a hand completes three
pairs within a few draws), ``lookahead`` (the player that uses it: the game's ``TEACHER``) and
``feeding`` (what reading the next player's hand is worth: a measurement, docs/samsip.md)."""
