"""Training on Ray RLlib (the ``[rllib]`` extra): league self-play, the masking RLModules,
the ``widderkopf-train-rllib`` command and a simulated cluster for tests and benchmarks."""
