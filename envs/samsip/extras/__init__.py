"""Sam Sip's modules beyond the game skeleton: ``outs`` (the chance that a hand completes three
pairs within a few draws) and ``lookahead`` (the player that uses it: the game's ``TEACHER``)."""
