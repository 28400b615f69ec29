"""What tests share: harnesses, helpers, clocks, reference data and a plugin game."""
