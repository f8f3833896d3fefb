"""Settings every test shares.

Hypothesis: examples come from each test's name (``derandomize``), so a property test that fails
in CI fails the same way on any machine; no deadline, since a loaded machine is slower, not wrong.
``HYPOTHESIS_PROFILE=explore`` draws new examples on every run, to look for what the fixed ones miss.
"""

import os

from hypothesis import settings

settings.register_profile("cardzoo", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "cardzoo"))
