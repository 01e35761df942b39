"""`make bench`: speed and quality benchmarks, each printed beside a baseline measured in the same run."""
