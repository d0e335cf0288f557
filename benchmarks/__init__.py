"""Benchmarks of nbayes against scikit-learn; run ``python -m benchmarks --help``."""
