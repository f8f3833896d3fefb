"""Full-information value networks for luck-adjusted evaluation (``cardzoo model value``)."""
