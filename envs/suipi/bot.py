class RuleBot:  # placeholder, replaced below
    def __init__(self, config, seed=None):
        pass
